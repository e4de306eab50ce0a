// Recordings and their attachments' rows (the bytes are in the attachment store, attachments.ts, which the
// recordings service fills and empties around its units of work: files of the data dir on SQLite, rows of
// attachment_blobs on PostgreSQL). Written once for both engines (engine.ts; test/pg/recordings.test.ts runs it on
// both and compares every answer).
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Engine, Prepared, Q } from '../engine.ts';
import { keysetAfter } from '../pagination.ts';
import { inJsonList, listValues } from '../prepared.ts';
import type { recordingAttachments, recordings } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import { ConcurrentChange } from '../pg/engine.ts';

export type RecordingRow = typeof recordings.$inferSelect;
export type AttachmentRow = typeof recordingAttachments.$inferSelect;
/** An attachment of a new version: numbered after the recording's last one, stamped with the version. */
export type NewAttachment = Pick<AttachmentRow, 'name' | 'type' | 'mimeType' | 'size' | 'sha256' | 'storageKey'>;

/** The filters of a recordings page: which are present, and how many recording ids (at most 30: recordingsGetInput). */
type PageShape = `${'' | '+after'}${'' | '+document'}:${number}`;

const P = sql.placeholder;

/** The key's recordings and their attachments. */
export function recordingsRepo(engine: Engine) {
  const { recordings: rec, recordingAttachments: att } = engine.t;

  // Any number of values as one parameter (one prepared statement for all, and no list past a bound-parameter
  // limit). The engines' SQL differs: SQLite has no array type and reads a JSON array's elements (json_each),
  // PostgreSQL binds a text[].
  const inList =
    engine.kind === 'sqlite'
      ? { where: (column: SQLiteColumn, name: string) => inJsonList(column, name), value: (values: readonly string[]) => JSON.stringify(values) }
      : { where: (column: SQLiteColumn, name: string) => sql`${column} = any(${P(name)}::text[])`, value: (values: readonly string[]) => [...values] };

  const own = (apiKeyId: string, organizationId: string, id: string) => and(eq(rec.apiKeyId, apiKeyId), eq(rec.organizationId, organizationId), eq(rec.id, id));
  const byId = engine.prepare('recordings.byId', (db) =>
    db
      .select()
      .from(rec)
      .where(and(eq(rec.apiKeyId, P('apiKeyId')), eq(rec.organizationId, P('organizationId')), eq(rec.id, P('id')))),
  );
  const find = (db: Q, apiKeyId: string, organizationId: string, id: string) => byId.one(db, { apiKeyId, organizationId, id });

  // one statement, so one instant on both engines: the recording, and each of its attachments (none: one row, its
  // attachment null), by attachment id
  const withAttachments = engine.prepare('recordings.withAttachments', (db) =>
    db
      .select({ row: rec, attachment: att })
      .from(rec)
      .leftJoin(att, and(eq(att.apiKeyId, rec.apiKeyId), eq(att.organizationId, rec.organizationId), eq(att.recordingId, rec.id)))
      .where(and(eq(rec.apiKeyId, P('apiKeyId')), eq(rec.organizationId, P('organizationId')), eq(rec.id, P('id'))))
      .orderBy(asc(att.attachmentId)),
  );

  /**
   * The attachments of some recordings, by attachment id. The lists by recording are the contract; the Map's key
   * order is not (callers look recordings up by id), and ties of attachment ids across recordings are broken by
   * recording id.
   */
  const attachmentRows = engine.prepare('recordings.attachments', (db) =>
    db
      .select()
      .from(att)
      .where(and(eq(att.apiKeyId, P('apiKeyId')), eq(att.organizationId, P('organizationId')), inList.where(att.recordingId, 'recordingIds')))
      .orderBy(asc(att.attachmentId), asc(att.recordingId)),
  );

  /** The attachments of the recordings, by recording, each list by attachment id. */
  async function attachmentsOf(db: Q, apiKeyId: string, organizationId: string, recordingIds: readonly string[]) {
    const byRecording = new Map<string, AttachmentRow[]>();
    if (recordingIds.length === 0) return byRecording;
    for (const row of await attachmentRows.all(db, { apiKeyId, organizationId, recordingIds: inList.value(recordingIds) })) {
      let list = byRecording.get(row.recordingId);
      if (!list) byRecording.set(row.recordingId, (list = []));
      list.push(row);
    }
    return byRecording;
  }

  /** A recordings page, newest first, prepared per filter shape (recording ids one placeholder each). */
  const pages = new Map<PageShape, Prepared<RecordingRow>>();
  const pageOf = (shape: PageShape) => {
    let prepared = pages.get(shape);
    if (!prepared)
      pages.set(
        shape,
        (prepared = engine.prepare(`recordings.page${shape}`, (db) => {
          const [flags, ids] = shape.split(':') as [string, string];
          const conditions: (SQL | undefined)[] = [eq(rec.apiKeyId, P('apiKeyId')), eq(rec.organizationId, P('organizationId'))];
          if (flags.includes('+after')) conditions.push(keysetAfter(rec.createdAt, rec.id, [P('afterCreatedAt'), P('afterId')], true));
          if (flags.includes('+document')) conditions.push(eq(rec.documentId, P('documentId')));
          if (ids !== '0')
            conditions.push(
              inArray(
                rec.id,
                Array.from({ length: Number(ids) }, (_, i) => P(`id${i}`)),
              ),
            );
          return db
            .select()
            .from(rec)
            .where(and(...conditions))
            .orderBy(desc(rec.createdAt), desc(rec.id))
            .limit(P('limit'));
        })),
      );
    return prepared;
  };

  const byStorageKey = engine.prepare('recordings.byStorageKey', (db) =>
    db
      .select()
      .from(att)
      .where(eq(att.storageKey, P('storageKey'))),
  );
  const storedAmong = engine.prepare('recordings.storedAmong', (db) =>
    db.select({ key: att.storageKey }).from(att).where(inList.where(att.storageKey, 'names')),
  );

  return {
    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => find(db, scope.apiKeyId, organizationId, id)),

    /**
     * Takes recording ids' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write
     * unit holds the database): a second add of a caller's id waits for the first's commit, then reads the version it
     * left; a delete waits for an add in flight, then reads the attachments it left.
     */
    lock: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => engine.lockRows(db, ['recording', scope.apiKeyId, organizationId], ids)),

    /** The recording and its attachments (by attachment id), or undefined. */
    withAttachments: (scope: TenantScope, organizationId: string, id: string) =>
      engine.read(async (db) => {
        const rows = await withAttachments.all(db, { apiKeyId: scope.apiKeyId, organizationId, id });
        const first = rows[0];
        if (!first) return undefined;
        return { row: first.row, attachments: rows.flatMap((r) => (r.attachment ? [r.attachment] : [])) };
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
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        let id: string;
        if ('insert' in version) {
          id = version.insert.id;
          await db.insert(rec).values({ ...version.insert, apiKeyId, organizationId });
        } else {
          id = version.id;
          const changed = engine.changed(
            await db
              .update(rec)
              .set(version.change)
              .where(own(apiKeyId, organizationId, id)),
          );
          // deleted since the unit read it (a delete at READ COMMITTED's pace): run again, the add makes it anew
          if (changed === 0) throw new ConcurrentChange('a recording this unit of work found');
        }
        if (attachments.files.length === 0) return;
        // numbered after the recording's last attachment, all of the version's in one statement
        const [last] = await db
          .select({ attachmentId: att.attachmentId })
          .from(att)
          .where(and(eq(att.apiKeyId, apiKeyId), eq(att.organizationId, organizationId), eq(att.recordingId, id)))
          .orderBy(desc(att.attachmentId))
          .limit(1);
        let attachmentId = last?.attachmentId ?? 0;
        await db.insert(att).values(
          attachments.files.map((f) => ({
            ...f,
            apiKeyId,
            organizationId,
            recordingId: id,
            attachmentId: ++attachmentId,
            version: attachments.version,
            createdAt: attachments.createdAt,
          })),
        );
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
        // an empty list of ids is no filter
        return pageOf(`${after ? '+after' : ''}${filters.documentId ? '+document' : ''}:${filters.recordingIds?.length ?? 0}`).all(db, values);
      }),

    /** The attachments of the recordings, by recording. */
    attachments: (scope: TenantScope, organizationId: string, recordingIds: readonly string[]) =>
      engine.read((db) => attachmentsOf(db, scope.apiKeyId, organizationId, recordingIds)),

    /** Deletes the recordings (their attachment rows by cascade); those that existed, with their attachments' storage keys. */
    delete: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write(async (db) => {
        const deleted: Array<{ row: RecordingRow; storageKeys: string[] }> = [];
        for (const id of ids) {
          const row = await find(db, scope.apiKeyId, organizationId, id);
          if (!row) continue;
          const storageKeys = ((await attachmentsOf(db, scope.apiKeyId, organizationId, [id])).get(id) ?? []).map((a) => a.storageKey);
          // gone since the read (its document's delete, at READ COMMITTED): not this call's to answer deleted
          if (engine.changed(await db.delete(rec).where(own(scope.apiKeyId, organizationId, id))) > 0) deleted.push({ row, storageKeys });
        }
        return deleted;
      }),

    /**
     * The attachment stored under a storage key, whoever's it is: the key (32 random characters in an
     * `/attachments/<key>` URL) is the capability, and no tenant is known when it is fetched.
     */
    attachmentByStorageKey: (storageKey: string) => engine.read((db) => byStorageKey.one(db, { storageKey })),

    /** Which of these file names are the storage key of some attachment (the start's sweep of orphan files). */
    storedKeys: (names: readonly string[]) =>
      engine.read(async (db) => {
        const stored = new Set<string>();
        if (names.length === 0) return stored;
        const found = new Set((await storedAmong.all(db, { names: inList.value(names) })).map((r) => r.key));
        // in the order of the names asked
        for (const name of names) if (found.has(name)) stored.add(name);
        return stored;
      }),
  };
}

export type RecordingsRepo = ReturnType<typeof recordingsRepo>;
