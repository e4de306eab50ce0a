// Recordings and their attachments' rows on PostgreSQL: the same repository as ../../repos/recordings.ts (its type is
// the contract; test/pg/recordings.test.ts runs both on the same calls and compares every answer). The bytes are
// rows of attachment_blobs (attachments.ts), which the recordings service fills and empties around its units of work.
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { AttachmentRow, RecordingRow, RecordingsRepo } from '../../repos/recordings.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTableFor } from '../schema.ts';

const { table: recordings, c } = pgTableFor('recordings');
const { table: attachmentsTable, c: a } = pgTableFor('recordingAttachments');

/** `column` is one of the values: one array parameter, however many (an IN list would run into PostgreSQL's 65,535 parameters). */
const anyOf = (column: PgColumn, values: readonly string[]) => sql`${column} = ANY(${sql.param([...values])}::text[])`;

const own = (apiKeyId: string, organizationId: string, id: string) => and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId), eq(c.id, id));

async function find(db: PgDb, apiKeyId: string, organizationId: string, id: string) {
  return (
    await db
      .select()
      .from(recordings)
      .where(own(apiKeyId, organizationId, id))
      .limit(1)
  )[0] as RecordingRow | undefined;
}

/**
 * The attachments of the recordings, by recording, each list by attachment id (one statement). The lists are the
 * contract; the Map's key order is not (callers look recordings up by id), and ties of attachment ids across
 * recordings are broken by recording id here.
 */
async function attachmentsOf(db: PgDb, apiKeyId: string, organizationId: string, recordingIds: readonly string[]) {
  const byRecording = new Map<string, AttachmentRow[]>();
  if (recordingIds.length === 0) return byRecording;
  const rows = (await db
    .select()
    .from(attachmentsTable)
    .where(and(eq(a.apiKeyId, apiKeyId), eq(a.organizationId, organizationId), anyOf(a.recordingId, recordingIds)))
    .orderBy(asc(a.attachmentId), asc(a.recordingId))) as AttachmentRow[];
  for (const row of rows) {
    let list = byRecording.get(row.recordingId);
    if (!list) byRecording.set(row.recordingId, (list = []));
    list.push(row);
  }
  return byRecording;
}

export function recordingsRepoPg(engine: PgEngine): RecordingsRepo {
  return {
    find: (scope, organizationId, id) => engine.read((db) => find(db, scope.apiKeyId, organizationId, id)),

    withAttachments: (scope, organizationId, id) =>
      engine.read(async (db) => {
        const row = await find(db, scope.apiKeyId, organizationId, id);
        return row && { row, attachments: (await attachmentsOf(db, scope.apiKeyId, organizationId, [id])).get(id) ?? [] };
      }),

    saveVersion: (scope, organizationId, version, attachments) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        let id: string;
        if ('insert' in version) {
          id = version.insert.id;
          await db.insert(recordings).values({ ...version.insert, apiKeyId, organizationId } as never);
        } else {
          id = version.id;
          await db
            .update(recordings)
            .set(version.change as never)
            .where(own(apiKeyId, organizationId, id));
        }
        if (attachments.files.length === 0) return;
        // numbered after the recording's last attachment, all of the version's in one statement
        const [last] = (await db
          .select({ attachmentId: a.attachmentId })
          .from(attachmentsTable)
          .where(and(eq(a.apiKeyId, apiKeyId), eq(a.organizationId, organizationId), eq(a.recordingId, id)))
          .orderBy(desc(a.attachmentId))
          .limit(1)) as Array<{ attachmentId: number }>;
        let attachmentId = last?.attachmentId ?? 0;
        await db.insert(attachmentsTable).values(
          attachments.files.map((f) => ({
            ...f,
            apiKeyId,
            organizationId,
            recordingId: id,
            attachmentId: ++attachmentId,
            version: attachments.version,
            createdAt: attachments.createdAt,
          })) as never,
        );
      }),

    page: (scope, filters, after, limit) =>
      engine.read(async (db) => {
        const conditions: (SQL | undefined)[] = [eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, filters.organizationId)];
        if (after) conditions.push(keysetAfterPg(c.createdAt, c.id, after, true));
        if (filters.documentId) conditions.push(eq(c.documentId, filters.documentId));
        // as on SQLite, an empty list of ids is no filter
        if (filters.recordingIds?.length) conditions.push(anyOf(c.id, filters.recordingIds));
        return (await db
          .select()
          .from(recordings)
          .where(and(...conditions))
          .orderBy(desc(c.createdAt), desc(c.id))
          .limit(limit)) as RecordingRow[];
      }),

    attachments: (scope, organizationId, recordingIds) => engine.read((db) => attachmentsOf(db, scope.apiKeyId, organizationId, recordingIds)),

    delete: (scope, organizationId, ids) =>
      engine.write(async (db) => {
        const deleted: Array<{ row: RecordingRow; storageKeys: string[] }> = [];
        for (const id of ids) {
          const row = await find(db, scope.apiKeyId, organizationId, id);
          if (!row) continue;
          const storageKeys = ((await attachmentsOf(db, scope.apiKeyId, organizationId, [id])).get(id) ?? []).map((x) => x.storageKey);
          await db.delete(recordings).where(own(scope.apiKeyId, organizationId, id));
          deleted.push({ row, storageKeys });
        }
        return deleted;
      }),

    attachmentByStorageKey: (storageKey) =>
      engine.read(async (db) => (await db.select().from(attachmentsTable).where(eq(a.storageKey, storageKey)).limit(1))[0] as AttachmentRow | undefined),

    storedKeys: (names) =>
      engine.read(async (db) => {
        const stored = new Set<string>();
        if (names.length === 0) return stored;
        const found = new Set(
          ((await db.select({ key: a.storageKey }).from(attachmentsTable).where(anyOf(a.storageKey, names))) as Array<{ key: string }>).map((r) => r.key),
        );
        // in the order of the names asked, as SQLite's one lookup per name answers
        for (const name of names) if (found.has(name)) stored.add(name);
        return stored;
      }),
  };
}
