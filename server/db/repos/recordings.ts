// Recordings and their attachments' rows (the bytes are in the attachment store, attachments.ts, which the
// recordings service fills and empties around its units of work).
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { keysetAfter } from '../pagination.ts';
import { compiledRows, inJsonList, listValues, placeholderList } from '../prepared.ts';
import { recordingAttachments, recordings } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type RecordingRow = typeof recordings.$inferSelect;
export type AttachmentRow = typeof recordingAttachments.$inferSelect;
/** An attachment of a new version: numbered after the recording's last one, stamped with the version. */
export type NewAttachment = Pick<AttachmentRow, 'name' | 'type' | 'mimeType' | 'size' | 'sha256' | 'storageKey'>;

/** The attachments of some recordings (a JSON array of ids), by attachment id. */
const attachmentRows = compiledRows(recordingAttachments, (db, _shape: 'recordings', columns) =>
  db
    .select(columns)
    .from(recordingAttachments)
    .where(
      and(
        eq(recordingAttachments.apiKeyId, sql.placeholder('apiKeyId')),
        eq(recordingAttachments.organizationId, sql.placeholder('organizationId')),
        inJsonList(recordingAttachments.recordingId, 'recordingIds'),
      ),
    )
    .orderBy(asc(recordingAttachments.attachmentId)),
);

/** The attachments of the recordings, by recording, each list by attachment id. */
function attachmentsOf(db: Db, apiKeyId: string, organizationId: string, recordingIds: readonly string[]) {
  const byRecording = new Map<string, AttachmentRow[]>();
  if (recordingIds.length === 0) return byRecording;
  for (const row of attachmentRows(db, 'recordings', { apiKeyId, organizationId, recordingIds: JSON.stringify(recordingIds) })) {
    let list = byRecording.get(row.recordingId);
    if (!list) byRecording.set(row.recordingId, (list = []));
    list.push(row);
  }
  return byRecording;
}

/** A recordings page, newest first, compiled per filter shape (recording ids one placeholder each). */
const recordingPage = compiledRows(recordings, (db, shape: `${'' | '+after'}${'' | '+document'}:${number}`, columns) => {
  const p = sql.placeholder;
  const [flags, ids] = shape.split(':') as [string, string];
  const conditions: (SQL | undefined)[] = [eq(recordings.apiKeyId, p('apiKeyId')), eq(recordings.organizationId, p('organizationId'))];
  if (flags.includes('+after')) conditions.push(keysetAfter(recordings.createdAt, recordings.id, [p('afterCreatedAt'), p('afterId')], true));
  if (flags.includes('+document')) conditions.push(eq(recordings.documentId, p('documentId')));
  if (ids !== '0') conditions.push(inArray(recordings.id, placeholderList('id', Number(ids))));
  return db
    .select(columns)
    .from(recordings)
    .where(and(...conditions))
    .orderBy(desc(recordings.createdAt), desc(recordings.id))
    .limit(p('limit'));
});

const own = (apiKeyId: string, organizationId: string, id: string) =>
  and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.organizationId, organizationId), eq(recordings.id, id));
const find = (db: Db, apiKeyId: string, organizationId: string, id: string) =>
  db
    .select()
    .from(recordings)
    .where(own(apiKeyId, organizationId, id))
    .get();

/** The key's recordings and their attachments. */
export function recordingsRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => find(db, scope.apiKeyId, organizationId, id)),

    /** The recording and its attachments (by attachment id), or undefined. */
    withAttachments: (scope: TenantScope, organizationId: string, id: string) =>
      engine.read((db) => {
        const row = find(db, scope.apiKeyId, organizationId, id);
        return row && { row, attachments: attachmentsOf(db, scope.apiKeyId, organizationId, [id]).get(id) ?? [] };
      }),

    /**
     * Stores a version: the new recording (`insert`) or the change of the existing one, then the version's
     * attachments, numbered after the recording's last one.
     */
    saveVersion: (
      scope: TenantScope,
      organizationId: string,
      version:
        | { insert: Omit<RecordingRow, 'apiKeyId' | 'organizationId'> }
        | { id: string; change: Partial<Pick<RecordingRow, 'latestVersion' | 'durationMs' | 'displayName' | 'updatedAt'>> },
      attachments: { version: number; createdAt: number; files: readonly NewAttachment[] },
    ) =>
      engine.write((db) => {
        const apiKeyId = scope.apiKeyId;
        let id: string;
        if ('insert' in version) {
          id = version.insert.id;
          db.insert(recordings)
            .values({ ...version.insert, apiKeyId, organizationId })
            .run();
        } else {
          id = version.id;
          db.update(recordings)
            .set(version.change)
            .where(own(apiKeyId, organizationId, id))
            .run();
        }
        const last = db
          .select({ attachmentId: recordingAttachments.attachmentId })
          .from(recordingAttachments)
          .where(
            and(eq(recordingAttachments.apiKeyId, apiKeyId), eq(recordingAttachments.organizationId, organizationId), eq(recordingAttachments.recordingId, id)),
          )
          .orderBy(desc(recordingAttachments.attachmentId))
          .get();
        let attachmentId = last?.attachmentId ?? 0;
        for (const f of attachments.files) {
          db.insert(recordingAttachments)
            .values({
              ...f,
              apiKeyId,
              organizationId,
              recordingId: id,
              attachmentId: ++attachmentId,
              version: attachments.version,
              createdAt: attachments.createdAt,
            })
            .run();
        }
      }),

    page: (
      scope: TenantScope,
      filters: { organizationId: string; documentId?: string | undefined; recordingIds?: readonly string[] | undefined },
      after: readonly [number, string] | null,
      limit: number,
    ) =>
      engine.read((db) => {
        const values: Record<string, unknown> = {
          apiKeyId: scope.apiKeyId,
          organizationId: filters.organizationId,
          afterCreatedAt: after?.[0],
          afterId: after?.[1],
          documentId: filters.documentId,
          limit,
        };
        listValues(values, 'id', filters.recordingIds);
        return recordingPage(db, `${after ? '+after' : ''}${filters.documentId ? '+document' : ''}:${filters.recordingIds?.length ?? 0}`, values);
      }),

    /** The attachments of the recordings, by recording. */
    attachments: (scope: TenantScope, organizationId: string, recordingIds: readonly string[]) =>
      engine.read((db) => attachmentsOf(db, scope.apiKeyId, organizationId, recordingIds)),

    /** Deletes the recordings (their attachment rows by cascade); those that existed, with their attachments' storage keys. */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => {
        const deleted: Array<{ row: RecordingRow; storageKeys: string[] }> = [];
        for (const id of ids) {
          const row = find(db, scope.apiKeyId, organizationId, id);
          if (!row) continue;
          const storageKeys = (attachmentsOf(db, scope.apiKeyId, organizationId, [id]).get(id) ?? []).map((a) => a.storageKey);
          db.delete(recordings)
            .where(own(scope.apiKeyId, organizationId, id))
            .run();
          deleted.push({ row, storageKeys });
        }
        return deleted;
      }),

    /**
     * The attachment stored under a storage key, whoever's it is: the key (32 random characters in an
     * `/attachments/<key>` URL) is the capability, and no tenant is known when it is fetched.
     */
    attachmentByStorageKey: (storageKey: string) =>
      engine.read((db) => db.select().from(recordingAttachments).where(eq(recordingAttachments.storageKey, storageKey)).get()),

    /** Which of these file names are the storage key of some attachment (the start's sweep of orphan files). */
    storedKeys: (names: readonly string[]) =>
      engine.read((db) => {
        const stored = new Set<string>();
        for (const name of names) {
          if (db.select({ key: recordingAttachments.storageKey }).from(recordingAttachments).where(eq(recordingAttachments.storageKey, name)).get())
            stored.add(name);
        }
        return stored;
      }),
  };
}

export type RecordingsRepo = ReturnType<typeof recordingsRepo>;
