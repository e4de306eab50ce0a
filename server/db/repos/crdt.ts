// The collaborative documents of a key (Yjs rooms): their rows and update logs. Written once for both engines
// (engine.ts; test/pg/crdt.test.ts runs it on both and compares every answer). Updates and snapshots are blobs on
// SQLite and bytea on PostgreSQL, and come back as Buffers on both.
//
// Every flush (`append`) and every load of a document (`find`, `head`, `stored`, `log`) comes here: their statements
// are prepared once per connection. Two methods are each engine's own (`sqliteSteps` and `pgStatements` below, chosen
// by `engine.kind`), for the flush's speed and for a read of one instant:
// - `append`: on SQLite one synchronous step, each item's row bumped and its update appended with no await between
//   (a flush of many items adds no await per item; `lastInsertRowid` is the appended seq); on PostgreSQL one
//   statement per item, a data-modifying CTE that bumps the row and appends the update (one round trip per item, not
//   two; SQLite has no data-modifying CTE). Either way an item whose row is gone (deleted, created again, moved)
//   appends nothing.
// - `stored`: the row and its log as of one instant. On SQLite its two statements in one synchronous step, in a read
//   transaction outside a unit of work (another process, the CLI, could commit between them otherwise). On PostgreSQL
//   one statement (the row and its log aggregated beside it, by array_agg, which SQLite has no form of for blobs): a
//   statement sees one snapshot at any isolation level, so it needs no transaction of its own, and inside a caller's
//   unit of work it sees that unit's writes. (engine.snapshot would serve both, but on SQLite it runs one at a time on
//   a connection of its own, and a load is hot.)
import { and, asc, eq, gt, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Engine, Q, Tables } from '../engine.ts';
import type { PgDb } from '../pg/engine.ts';
import { connectionOf } from '../connection.ts';
import { preparedFor } from '../prepared.ts';
import type { crdtDocuments } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type CrdtRow = typeof crdtDocuments.$inferSelect;
export type CrdtType = CrdtRow['type'];

/** One editor's document of a key: the room of `/yjs/{organizationId}/{documentId}/{editorId}`. */
export interface RoomId {
  organizationId: string;
  documentId: string;
  editorId: string;
}

/** One stored update of a document's log. */
export interface LogRow {
  seq: number;
  createdAt: number;
  update: Uint8Array;
}

/** What one store flush writes for one document: its update, merged, appended after its row is bumped. */
export interface AppendItem {
  scope: TenantScope;
  room: RoomId;
  /** The `created_at` of the row the update belongs to: a row deleted and created again is another document. */
  rowCreatedAt: number;
  update: Uint8Array;
  lastUpdatedBy: string | null;
}

const P = <T>(name: string) => sql.placeholder(name) as unknown as T;
type RoomValues = { organizationId: string; documentId: string; editorId: string };
const placeholders = { organizationId: P<string>('organizationId'), documentId: P<string>('documentId'), editorId: P<string>('editorId') };

const roomOf = ({ crdtDocuments: d }: Tables, apiKeyId: string, r: RoomValues) =>
  and(eq(d.apiKeyId, apiKeyId), eq(d.organizationId, r.organizationId), eq(d.documentId, r.documentId), eq(d.editorId, r.editorId));
const logOf = ({ crdtUpdates: u }: Tables, apiKeyId: string, r: RoomValues) =>
  and(eq(u.apiKeyId, apiKeyId), eq(u.organizationId, r.organizationId), eq(u.documentId, r.documentId), eq(u.editorId, r.editorId));

/** The statements every load reads with, by room placeholders: the engine's prepared ones and SQLite's synchronous step. */
const rowOf = (db: Q, t: Tables) =>
  db
    .select()
    .from(t.crdtDocuments)
    .where(roomOf(t, P<string>('apiKeyId'), placeholders));
const logRowsOf = (db: Q, t: Tables) =>
  db
    .select({ seq: t.crdtUpdates.seq, createdAt: t.crdtUpdates.createdAt, update: t.crdtUpdates.update })
    .from(t.crdtUpdates)
    .where(logOf(t, P<string>('apiKeyId'), placeholders))
    .orderBy(asc(t.crdtUpdates.seq));

const args = (scope: TenantScope | string, r: RoomId) => ({
  apiKeyId: typeof scope === 'string' ? scope : scope.apiKeyId,
  organizationId: r.organizationId,
  documentId: r.documentId,
  editorId: r.editorId,
});

/** The bytes as a Buffer (a blob, a bytea), without a copy when they are one already. */
const bytes = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

type Stored = { row: CrdtRow; log: LogRow[] };
type Appended = { updateCount: number; seq: number } | null;

/** What each engine does its own way (see the top): the flush's appends and the read of a row with its log. */
interface EngineSteps {
  stored(db: Q, apiKeyId: string, room: RoomId): Promise<Stored | undefined>;
  append(db: Q, items: readonly AppendItem[], now: number): Promise<Appended[]>;
}

/** SQLite's steps: synchronous statements (drizzle's, prepared once per connection), nothing between them. */
function sqliteSteps(t: Tables): EngineSteps {
  const { crdtDocuments: d, crdtUpdates: u } = t;
  const statements = preparedFor((db) => ({
    row: rowOf(db, t).prepare(),
    log: logRowsOf(db, t).prepare(),
    bump: db
      .update(d)
      .set({ updateCount: sql`${d.updateCount} + 1`, updatedAt: P<number>('updatedAt'), lastUpdatedBy: P<string>('lastUpdatedBy') })
      .where(and(roomOf(t, P<string>('apiKeyId'), placeholders), eq(d.createdAt, P<number>('rowCreatedAt'))))
      .returning({ updateCount: d.updateCount })
      .prepare(),
    append: db
      .insert(u)
      .values({ apiKeyId: P<string>('apiKeyId'), ...placeholders, update: P<Buffer>('update'), createdAt: P<number>('createdAt') })
      .prepare(),
  }));
  /** The stored row and its update log, read in one step. */
  const storedIn = (db: Q, apiKeyId: string, room: RoomId): Stored | undefined => {
    const q = statements(db);
    const row = q.row.get(args(apiKeyId, room));
    if (!row) return undefined;
    return { row, log: q.log.all(args(apiKeyId, room)) };
  };
  return {
    // in a unit of work (the write connection's transaction) as it is; else in a read transaction of its own
    stored: async (db, apiKeyId, room) => (connectionOf(db).inTransaction ? storedIn(db, apiKeyId, room) : db.transaction(() => storedIn(db, apiKeyId, room))),
    append: async (db, items, now) => {
      const q = statements(db);
      return items.map((item) => {
        const row = q.bump.get({ ...args(item.scope, item.room), rowCreatedAt: item.rowCreatedAt, updatedAt: now, lastUpdatedBy: item.lastUpdatedBy });
        if (!row) return null;
        const appended = q.append.run({ ...args(item.scope, item.room), update: bytes(item.update), createdAt: now });
        return { updateCount: row.updateCount, seq: Number(appended.lastInsertRowid) };
      });
    },
  };
}

/** The row's columns by the source's property names, in the source's order (CrdtRow). */
const PG_ROW =
  'd.api_key_id AS "apiKeyId", d.organization_id AS "organizationId", d.document_id AS "documentId", d.editor_id AS "editorId",' +
  ' d.type, d.content_key AS "contentKey", d.infer, d.snapshot, d.update_count AS "updateCount", d.last_updated_by AS "lastUpdatedBy",' +
  ' d.compacted_at AS "compactedAt", d.created_at AS "createdAt", d.updated_at AS "updatedAt"';
const PG_ROOM = 'd.api_key_id = $1 AND d.organization_id = $2 AND d.document_id = $3 AND d.editor_id = $4';

const roomValues = (apiKeyId: string, r: RoomId) => [apiKeyId, r.organizationId, r.documentId, r.editorId];

interface PgStoredRow extends CrdtRow {
  /** The log's columns side by side, by seq (null when the log is empty); int8[] arrives as text. */
  seqs: string[] | null;
  times: string[] | null;
  updates: Buffer[] | null;
}

/** PostgreSQL's statements: one each, named (prepared once per pooled connection). */
const pgStatements: EngineSteps = {
  async stored(db, apiKeyId, room) {
    const { rows } = await (db as unknown as PgDb).$client.query<PgStoredRow>({
      name: 'crdt.stored',
      text:
        `SELECT ${PG_ROW}, l.seqs, l.times, l.updates FROM crdt_documents d CROSS JOIN LATERAL (` +
        'SELECT array_agg(u.seq ORDER BY u.seq) AS seqs, array_agg(u.created_at ORDER BY u.seq) AS times, array_agg(u."update" ORDER BY u.seq) AS updates' +
        ' FROM crdt_updates u WHERE u.api_key_id = d.api_key_id AND u.organization_id = d.organization_id AND u.document_id = d.document_id AND u.editor_id = d.editor_id' +
        `) l WHERE ${PG_ROOM}`,
      values: roomValues(apiKeyId, room),
    });
    const found = rows[0];
    if (!found) return undefined;
    const { seqs, times, updates, ...row } = found;
    const log: LogRow[] = (seqs ?? []).map((seq, i) => ({ seq: Number(seq), createdAt: Number(times?.[i]), update: updates?.[i] as Buffer }));
    return { row, log };
  },
  async append(db, items, now) {
    const answers: Appended[] = [];
    // one item after the other: seqs are given in the items' order, as on SQLite
    for (const item of items) {
      const { rows } = await (db as unknown as PgDb).$client.query<{ seq: number; updateCount: number }>({
        name: 'crdt.append',
        text:
          'WITH bumped AS (UPDATE crdt_documents SET update_count = update_count + 1, updated_at = $6, last_updated_by = $7' +
          ' WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4 AND created_at = $5 RETURNING update_count)' +
          ' INSERT INTO crdt_updates (api_key_id, organization_id, document_id, editor_id, "update", created_at)' +
          ' SELECT $1, $2, $3, $4, $8, $6 FROM bumped RETURNING seq, (SELECT update_count FROM bumped) AS "updateCount"',
        values: [...roomValues(item.scope.apiKeyId, item.room), item.rowCreatedAt, now, item.lastUpdatedBy, bytes(item.update)],
      });
      const row = rows[0];
      answers.push(row ? { updateCount: row.updateCount, seq: row.seq } : null);
    }
    return answers;
  },
};

/** The collaborative documents of a key: their rows (type, content key, snapshot) and their update logs. */
export function crdtRepo(engine: Engine) {
  const { t } = engine;
  const { crdtDocuments: d, crdtUpdates: u } = t;
  const steps = engine.kind === 'sqlite' ? sqliteSteps(t) : pgStatements;
  const row = engine.prepare('crdt.row', rowOf);
  // The stored row without its snapshot (which can be megabytes): what checking a loaded document needs.
  const head = engine.prepare('crdt.head', (db) =>
    db
      .select({ createdAt: d.createdAt, updateCount: d.updateCount, updatedAt: d.updatedAt })
      .from(d)
      .where(roomOf(t, P<string>('apiKeyId'), placeholders)),
  );
  const log = engine.prepare('crdt.log', logRowsOf);
  const logSeqs = engine.prepare('crdt.logSeqs', (db) =>
    db
      .select({ seq: u.seq })
      .from(u)
      .where(logOf(t, P<string>('apiKeyId'), placeholders))
      .orderBy(asc(u.seq)),
  );

  return {
    find: (scope: TenantScope, room: RoomId) => engine.read((db) => row.one(db, args(scope, room))),

    /** The row without its snapshot. */
    head: (scope: TenantScope, room: RoomId) => engine.read((db) => head.one(db, args(scope, room))),

    /** The row and its update log, oldest first, as of one instant. */
    stored: (scope: TenantScope, room: RoomId) => engine.read((db) => steps.stored(db, scope.apiKeyId, room)),

    /** The editors a document has (all, or among `editorIds`), by id. */
    editors: (scope: TenantScope, organizationId: string, documentId: string, editorIds?: readonly string[]) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(d.apiKeyId, scope.apiKeyId), eq(d.organizationId, organizationId), eq(d.documentId, documentId)];
        if (editorIds) where.push(inArray(d.editorId, [...editorIds]));
        const rows = await db
          .select({ editorId: d.editorId })
          .from(d)
          .where(and(...where))
          .orderBy(asc(d.editorId));
        return rows.map((r) => r.editorId);
      }),

    /** Makes the room's row; false when one is there (another request made it first), which stays as it is. */
    create: (scope: TenantScope, room: RoomId, fields: { type: CrdtType; contentKey: string; infer: number; now: number }) =>
      engine.write(async (db) => {
        const made = await db
          .insert(d)
          .values({
            ...args(scope, room),
            type: fields.type,
            contentKey: fields.contentKey,
            infer: fields.infer,
            snapshot: null,
            updateCount: 0,
            createdAt: fields.now,
            updatedAt: fields.now,
          })
          .onConflictDoNothing();
        return engine.changed(made) > 0;
      }),

    /**
     * Appends each item's update to its document's log and bumps the row, in the caller's unit of work. For each
     * item: the new update count and the appended row's seq, or null when its row is gone (deleted, created again,
     * or moved to another document id while loaded).
     */
    append: (items: readonly AppendItem[], now: number) => engine.write((db) => steps.append(db, items, now)),

    /** Fixes a room's type and content key (learned from its content, or given by a REST write). */
    settle: (scope: TenantScope, room: RoomId, type: CrdtType, contentKey: string) =>
      engine.write(
        async (db) =>
          void (await db
            .update(d)
            .set({ type, contentKey, infer: 0 })
            .where(roomOf(t, scope.apiKeyId, room))),
      ),

    /** The snapshot stored now (before a compaction replaces it). */
    snapshot: (scope: TenantScope, room: RoomId) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ snapshot: d.snapshot })
              .from(d)
              .where(roomOf(t, scope.apiKeyId, room))
              .limit(1)
          )[0]?.snapshot ?? null,
      ),

    /** Stores the whole state as the snapshot and starts the count over. */
    setSnapshot: (scope: TenantScope, room: RoomId, snapshot: Uint8Array, now: number) =>
      engine.write(
        async (db) =>
          void (await db
            .update(d)
            .set({ snapshot: bytes(snapshot), updateCount: 0, compactedAt: now })
            .where(roomOf(t, scope.apiKeyId, room))),
      ),

    /** The log's rows, oldest first. */
    log: (scope: TenantScope, room: RoomId) => engine.read((db) => log.all(db, args(scope, room))),

    /** The seqs of the log's rows, oldest first (what a planned history trim checks before it writes). */
    logSeqs: (scope: TenantScope, room: RoomId) => engine.read(async (db) => (await logSeqs.all(db, args(scope, room))).map((r) => r.seq)),

    /** Replaces the log's rows from `firstSeq` to `lastSeq` by one row (at `firstSeq`) holding `merged`. */
    mergeLog: (scope: TenantScope, room: RoomId, firstSeq: number, lastSeq: number, merged: Uint8Array, createdAt: number) =>
      engine.write(async (db) => {
        await db
          .update(u)
          .set({ update: bytes(merged), createdAt })
          .where(and(logOf(t, scope.apiKeyId, room), eq(u.seq, firstSeq)));
        if (lastSeq > firstSeq) await db.delete(u).where(and(logOf(t, scope.apiKeyId, room), gt(u.seq, firstSeq), lte(u.seq, lastSeq)));
      }),

    deleteLog: (scope: TenantScope, room: RoomId) => engine.write(async (db) => void (await db.delete(u).where(logOf(t, scope.apiKeyId, room)))),

    /** Removes the document (its log by cascade); whether it existed. */
    remove: (scope: TenantScope, room: RoomId) => engine.write(async (db) => engine.changed(await db.delete(d).where(roomOf(t, scope.apiKeyId, room))) > 0),
  };
}

export type CrdtRepo = ReturnType<typeof crdtRepo>;
