// The collaborative documents on PostgreSQL: the same repository as ../../repos/crdt.ts (its type is the contract;
// test/pg/crdt.test.ts runs both on the same calls and compares every answer). Updates and snapshots are bytea and
// come back as Buffers, as better-sqlite3 hands blobs. The paths every keystroke or load takes (append, head, find,
// stored, log) are named statements, prepared once per connection; the rest are drizzle's.
//
// `stored` is one statement (the row and its log aggregated beside it): a statement sees one snapshot at any
// isolation level, so the row and its log are read as of one instant without a transaction of its own (SQLite needs
// a read transaction for its two statements), and inside a caller's unit of work it sees that unit's writes.
//
// `append` is one statement per item: the row is bumped and the update appended by a data-modifying CTE, so that an
// item whose row is gone (deleted, created again, moved) appends nothing, as SQLite's two steps do.
import { and, asc, eq, gt, inArray, lte, type SQL } from 'drizzle-orm';
import type { AppendItem, CrdtRepo, CrdtRow, CrdtType, LogRow, RoomId } from '../../repos/crdt.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: crdtDocuments, c: d } = pgTableFor('crdtDocuments');
const { table: crdtUpdates, c: u } = pgTableFor('crdtUpdates');

const roomOf = (apiKeyId: string, r: RoomId) =>
  and(eq(d.apiKeyId, apiKeyId), eq(d.organizationId, r.organizationId), eq(d.documentId, r.documentId), eq(d.editorId, r.editorId));
const logOf = (apiKeyId: string, r: RoomId) =>
  and(eq(u.apiKeyId, apiKeyId), eq(u.organizationId, r.organizationId), eq(u.documentId, r.documentId), eq(u.editorId, r.editorId));

/** The row's columns by the source's property names, in the source's order (CrdtRow). */
const ROW =
  'd.api_key_id AS "apiKeyId", d.organization_id AS "organizationId", d.document_id AS "documentId", d.editor_id AS "editorId",' +
  ' d.type, d.content_key AS "contentKey", d.infer, d.snapshot, d.update_count AS "updateCount", d.last_updated_by AS "lastUpdatedBy",' +
  ' d.compacted_at AS "compactedAt", d.created_at AS "createdAt", d.updated_at AS "updatedAt"';
const ROOM = 'd.api_key_id = $1 AND d.organization_id = $2 AND d.document_id = $3 AND d.editor_id = $4';

const roomValues = (apiKeyId: string, r: RoomId) => [apiKeyId, r.organizationId, r.documentId, r.editorId];

/** The bytes as a Buffer (what pg sends as bytea), without a copy when they are one already. */
const bytes = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

async function findRow(db: PgDb, apiKeyId: string, room: RoomId): Promise<CrdtRow | undefined> {
  const { rows } = await db.$client.query<CrdtRow>({
    name: 'hearth-crdt-row',
    text: `SELECT ${ROW} FROM crdt_documents d WHERE ${ROOM}`,
    values: roomValues(apiKeyId, room),
  });
  return rows[0];
}

/** A log row as the SQLite repository's `log` answers it: the update as a Buffer. */
type LogRowBuffer = Omit<LogRow, 'update'> & { update: Buffer };

async function logRows(db: PgDb, apiKeyId: string, room: RoomId): Promise<LogRowBuffer[]> {
  const { rows } = await db.$client.query<LogRowBuffer>({
    name: 'hearth-crdt-log',
    text:
      'SELECT seq, created_at AS "createdAt", "update" FROM crdt_updates' +
      ' WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4 ORDER BY seq',
    values: roomValues(apiKeyId, room),
  });
  return rows;
}

interface StoredRow extends CrdtRow {
  /** The log's columns side by side, by seq (null when the log is empty); int8[] arrives as text. */
  seqs: string[] | null;
  times: string[] | null;
  updates: Buffer[] | null;
}

async function stored(db: PgDb, apiKeyId: string, room: RoomId): Promise<{ row: CrdtRow; log: LogRow[] } | undefined> {
  const { rows } = await db.$client.query<StoredRow>({
    name: 'hearth-crdt-stored',
    text:
      `SELECT ${ROW}, l.seqs, l.times, l.updates FROM crdt_documents d CROSS JOIN LATERAL (` +
      'SELECT array_agg(u.seq ORDER BY u.seq) AS seqs, array_agg(u.created_at ORDER BY u.seq) AS times, array_agg(u."update" ORDER BY u.seq) AS updates' +
      ' FROM crdt_updates u WHERE u.api_key_id = d.api_key_id AND u.organization_id = d.organization_id AND u.document_id = d.document_id AND u.editor_id = d.editor_id' +
      `) l WHERE ${ROOM}`,
    values: roomValues(apiKeyId, room),
  });
  const found = rows[0];
  if (!found) return undefined;
  const { seqs, times, updates, ...row } = found;
  const log: LogRow[] = (seqs ?? []).map((seq, i) => ({ seq: Number(seq), createdAt: Number(times?.[i]), update: updates?.[i] as Buffer }));
  return { row, log };
}

/** The collaborative documents of a key on PostgreSQL: their rows (type, content key, snapshot) and their update logs. */
export function crdtRepoPg(engine: PgEngine): CrdtRepo {
  return {
    find: (scope: TenantScope, room: RoomId) => engine.read((db) => findRow(db, scope.apiKeyId, room)),

    head: (scope: TenantScope, room: RoomId) =>
      engine.read(async (db) => {
        const { rows } = await db.$client.query<{ createdAt: number; updateCount: number; updatedAt: number }>({
          name: 'hearth-crdt-head',
          text: `SELECT d.created_at AS "createdAt", d.update_count AS "updateCount", d.updated_at AS "updatedAt" FROM crdt_documents d WHERE ${ROOM}`,
          values: roomValues(scope.apiKeyId, room),
        });
        return rows[0];
      }),

    // one statement: one snapshot, in or out of a unit of work
    stored: (scope: TenantScope, room: RoomId) => engine.read((db) => stored(db, scope.apiKeyId, room)),

    editors: (scope: TenantScope, organizationId: string, documentId: string, editorIds?: readonly string[]) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(d.apiKeyId, scope.apiKeyId), eq(d.organizationId, organizationId), eq(d.documentId, documentId)];
        if (editorIds) where.push(inArray(d.editorId, [...editorIds]));
        const rows = (await db
          .select({ editorId: d.editorId })
          .from(crdtDocuments)
          .where(and(...where))
          .orderBy(asc(d.editorId))) as Array<{ editorId: string }>;
        return rows.map((r) => r.editorId);
      }),

    // another request's row for the room stands (issue 43): false, as SQLite's repository answers
    create: (scope: TenantScope, room: RoomId, fields: { type: CrdtType; contentKey: string; infer: number; now: number }) =>
      engine.write(async (db) => {
        const made = await db
          .insert(crdtDocuments)
          .values({
            apiKeyId: scope.apiKeyId,
            organizationId: room.organizationId,
            documentId: room.documentId,
            editorId: room.editorId,
            type: fields.type,
            contentKey: fields.contentKey,
            infer: fields.infer,
            snapshot: null,
            updateCount: 0,
            createdAt: fields.now,
            updatedAt: fields.now,
          } as never)
          .onConflictDoNothing();
        return (made.rowCount ?? 0) > 0;
      }),

    append: (items: readonly AppendItem[], now: number) =>
      engine.write(async (db) => {
        const answers: Array<{ updateCount: number; seq: number } | null> = [];
        // one item after the other: seqs are given in the items' order, as on SQLite
        for (const item of items) {
          const { rows } = await db.$client.query<{ seq: number; updateCount: number }>({
            name: 'hearth-crdt-append',
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
      }),

    settle: (scope: TenantScope, room: RoomId, type: CrdtType, contentKey: string) =>
      engine.write(async (db) => {
        await db
          .update(crdtDocuments)
          .set({ type, contentKey, infer: 0 } as never)
          .where(roomOf(scope.apiKeyId, room));
        return undefined;
      }),

    snapshot: (scope: TenantScope, room: RoomId) =>
      engine.read(async (db) => {
        const rows = (await db.select({ snapshot: d.snapshot }).from(crdtDocuments).where(roomOf(scope.apiKeyId, room))) as Array<{
          snapshot: Buffer | null;
        }>;
        return rows[0]?.snapshot ?? null;
      }),

    setSnapshot: (scope: TenantScope, room: RoomId, snapshot: Uint8Array, now: number) =>
      engine.write(async (db) => {
        await db
          .update(crdtDocuments)
          .set({ snapshot: bytes(snapshot), updateCount: 0, compactedAt: now } as never)
          .where(roomOf(scope.apiKeyId, room));
        return undefined;
      }),

    log: (scope: TenantScope, room: RoomId) => engine.read((db) => logRows(db, scope.apiKeyId, room)),

    logSeqs: (scope: TenantScope, room: RoomId) =>
      engine.read(async (db) => {
        const { rows } = await db.$client.query<{ seq: string }>({
          name: 'hearth-crdt-log-seqs',
          text: 'SELECT seq FROM crdt_updates WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4 ORDER BY seq',
          values: roomValues(scope.apiKeyId, room),
        });
        return rows.map((r) => Number(r.seq));
      }),

    mergeLog: (scope: TenantScope, room: RoomId, firstSeq: number, lastSeq: number, merged: Uint8Array, createdAt: number) =>
      engine.write(async (db) => {
        await db
          .update(crdtUpdates)
          .set({ update: bytes(merged), createdAt } as never)
          .where(and(logOf(scope.apiKeyId, room), eq(u.seq, firstSeq)));
        if (lastSeq > firstSeq) await db.delete(crdtUpdates).where(and(logOf(scope.apiKeyId, room), gt(u.seq, firstSeq), lte(u.seq, lastSeq)));
      }),

    deleteLog: (scope: TenantScope, room: RoomId) =>
      engine.write(async (db) => {
        await db.delete(crdtUpdates).where(logOf(scope.apiKeyId, room));
        return undefined;
      }),

    remove: (scope: TenantScope, room: RoomId) =>
      engine.write(async (db) => {
        const removed = await db.delete(crdtDocuments).where(roomOf(scope.apiKeyId, room)).returning({ editorId: d.editorId });
        return removed.length > 0;
      }),
  };
}
