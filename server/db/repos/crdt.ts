import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor } from '../prepared.ts';
import { crdtDocuments, crdtUpdates } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

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
const roomOf = (apiKeyId: string, r: RoomId) =>
  and(
    eq(crdtDocuments.apiKeyId, apiKeyId),
    eq(crdtDocuments.organizationId, r.organizationId),
    eq(crdtDocuments.documentId, r.documentId),
    eq(crdtDocuments.editorId, r.editorId),
  );
const logOf = (apiKeyId: string, r: RoomId) =>
  and(
    eq(crdtUpdates.apiKeyId, apiKeyId),
    eq(crdtUpdates.organizationId, r.organizationId),
    eq(crdtUpdates.documentId, r.documentId),
    eq(crdtUpdates.editorId, r.editorId),
  );
const placeholders = { organizationId: P<string>('organizationId'), documentId: P<string>('documentId'), editorId: P<string>('editorId') };

// The write path of every keystroke: statements prepared once per connection (drizzle would rebuild them).
const statements = preparedFor((db) => ({
  bump: db
    .update(crdtDocuments)
    .set({ updateCount: sql`${crdtDocuments.updateCount} + 1`, updatedAt: P<number>('updatedAt'), lastUpdatedBy: P<string>('lastUpdatedBy') })
    .where(and(roomOf(P<string>('apiKeyId'), placeholders), eq(crdtDocuments.createdAt, P<number>('rowCreatedAt'))))
    .returning({ updateCount: crdtDocuments.updateCount })
    .prepare(),
  append: db
    .insert(crdtUpdates)
    .values({ apiKeyId: P<string>('apiKeyId'), ...placeholders, update: P<Buffer>('update'), createdAt: P<number>('createdAt') })
    .prepare(),
  // The stored row without its snapshot (which can be megabytes): what checking a loaded document needs.
  head: db
    .select({ createdAt: crdtDocuments.createdAt, updateCount: crdtDocuments.updateCount, updatedAt: crdtDocuments.updatedAt })
    .from(crdtDocuments)
    .where(roomOf(P<string>('apiKeyId'), placeholders))
    .prepare(),
  row: db
    .select()
    .from(crdtDocuments)
    .where(roomOf(P<string>('apiKeyId'), placeholders))
    .prepare(),
  log: db
    .select({ seq: crdtUpdates.seq, createdAt: crdtUpdates.createdAt, update: crdtUpdates.update })
    .from(crdtUpdates)
    .where(logOf(P<string>('apiKeyId'), placeholders))
    .orderBy(asc(crdtUpdates.seq))
    .prepare(),
}));

const args = (scope: TenantScope | string, r: RoomId) => ({
  apiKeyId: typeof scope === 'string' ? scope : scope.apiKeyId,
  organizationId: r.organizationId,
  documentId: r.documentId,
  editorId: r.editorId,
});

/** The stored row and its update log, read in one step (one read transaction: they belong together). */
function storedIn(db: Db, apiKeyId: string, room: RoomId): { row: CrdtRow; log: LogRow[] } | undefined {
  const q = statements(db);
  const row = q.row.get(args(apiKeyId, room));
  if (!row) return undefined;
  return { row, log: q.log.all(args(apiKeyId, room)) };
}

/** The collaborative documents of a key: their rows (type, content key, snapshot) and their update logs. */
export function crdtRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, room: RoomId) => engine.read((db) => statements(db).row.get(args(scope, room))),

    /** The row without its snapshot. */
    head: (scope: TenantScope, room: RoomId) => engine.read((db) => statements(db).head.get(args(scope, room))),

    /** The row and its update log, oldest first, as of one instant. */
    stored: (scope: TenantScope, room: RoomId) =>
      engine.inTransaction()
        ? engine.read((db) => storedIn(db, scope.apiKeyId, room))
        : engine.read((db) => db.transaction(() => storedIn(db, scope.apiKeyId, room))),

    /** The editors a document has (all, or among `editorIds`), by id. */
    editors: (scope: TenantScope, organizationId: string, documentId: string, editorIds?: readonly string[]) =>
      engine.read((db) => {
        const where = [eq(crdtDocuments.apiKeyId, scope.apiKeyId), eq(crdtDocuments.organizationId, organizationId), eq(crdtDocuments.documentId, documentId)];
        if (editorIds) where.push(inArray(crdtDocuments.editorId, [...editorIds]));
        return db
          .select({ editorId: crdtDocuments.editorId })
          .from(crdtDocuments)
          .where(and(...where))
          .orderBy(asc(crdtDocuments.editorId))
          .all()
          .map((r) => r.editorId);
      }),

    /** Makes the room's row; false when one is there (another request made it first), which stays as it is. */
    create: (scope: TenantScope, room: RoomId, fields: { type: CrdtType; contentKey: string; infer: number; now: number }) =>
      engine.write(
        (db) =>
          db
            .insert(crdtDocuments)
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
            .onConflictDoNothing()
            .run().changes > 0,
      ),

    /**
     * Appends each item's update to its document's log and bumps the row, in the caller's unit of work. For each
     * item: the new update count and the appended row's seq, or null when its row is gone (deleted, created again,
     * or moved to another document id while loaded).
     */
    append: (items: readonly AppendItem[], now: number) =>
      engine.write((db) => {
        const q = statements(db);
        return items.map((item) => {
          const row = q.bump.get({ ...args(item.scope, item.room), rowCreatedAt: item.rowCreatedAt, updatedAt: now, lastUpdatedBy: item.lastUpdatedBy });
          if (!row) return null;
          const appended = q.append.run({ ...args(item.scope, item.room), update: Buffer.from(item.update), createdAt: now });
          return { updateCount: row.updateCount, seq: Number(appended.lastInsertRowid) };
        });
      }),

    /** Fixes a room's type and content key (learned from its content, or given by a REST write). */
    settle: (scope: TenantScope, room: RoomId, type: CrdtType, contentKey: string) =>
      engine.write((db) => void db.update(crdtDocuments).set({ type, contentKey, infer: 0 }).where(roomOf(scope.apiKeyId, room)).run()),

    /** The snapshot stored now (before a compaction replaces it). */
    snapshot: (scope: TenantScope, room: RoomId) =>
      engine.read((db) => db.select({ snapshot: crdtDocuments.snapshot }).from(crdtDocuments).where(roomOf(scope.apiKeyId, room)).get()?.snapshot ?? null),

    /** Stores the whole state as the snapshot and starts the count over. */
    setSnapshot: (scope: TenantScope, room: RoomId, snapshot: Uint8Array, now: number) =>
      engine.write(
        (db) =>
          void db
            .update(crdtDocuments)
            .set({ snapshot: Buffer.from(snapshot), updateCount: 0, compactedAt: now })
            .where(roomOf(scope.apiKeyId, room))
            .run(),
      ),

    /** The log's rows, oldest first. */
    log: (scope: TenantScope, room: RoomId) => engine.read((db) => statements(db).log.all(args(scope, room))),

    /** The seqs of the log's rows, oldest first (what a planned history trim checks before it writes). */
    logSeqs: (scope: TenantScope, room: RoomId) =>
      engine.read((db) =>
        db
          .select({ seq: crdtUpdates.seq })
          .from(crdtUpdates)
          .where(logOf(scope.apiKeyId, room))
          .orderBy(asc(crdtUpdates.seq))
          .all()
          .map((r) => r.seq),
      ),

    /** Replaces the log's rows from `firstSeq` to `lastSeq` by one row (at `firstSeq`) holding `merged`. */
    mergeLog: (scope: TenantScope, room: RoomId, firstSeq: number, lastSeq: number, merged: Uint8Array, createdAt: number) =>
      engine.write((db) => {
        db.update(crdtUpdates)
          .set({ update: Buffer.from(merged), createdAt })
          .where(and(logOf(scope.apiKeyId, room), eq(crdtUpdates.seq, firstSeq)))
          .run();
        if (lastSeq > firstSeq)
          db.delete(crdtUpdates)
            .where(and(logOf(scope.apiKeyId, room), sql`${crdtUpdates.seq} > ${firstSeq}`, sql`${crdtUpdates.seq} <= ${lastSeq}`))
            .run();
      }),

    deleteLog: (scope: TenantScope, room: RoomId) => engine.write((db) => void db.delete(crdtUpdates).where(logOf(scope.apiKeyId, room)).run()),

    /** Removes the document (its log by cascade); whether it existed. */
    remove: (scope: TenantScope, room: RoomId) => engine.write((db) => db.delete(crdtDocuments).where(roomOf(scope.apiKeyId, room)).run().changes > 0),
  };
}

export type CrdtRepo = ReturnType<typeof crdtRepo>;
