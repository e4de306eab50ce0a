import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { recordingsAddInput, recordingsGetInput } from '../../shared/schemas/recordings.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { compiledRows, inJsonList, listValues, placeholderList } from '../db/prepared.ts';
import { recordingAttachments, recordings } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import { recordActivityIn } from './activities.ts';
import { findDocumentIn, insertDocumentIn } from './documents.ts';
import { ensureOrganizationIn } from './organizations.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';
import { keyed } from './keyed.ts';

type RecordingRow = typeof recordings.$inferSelect;
type AttachmentRow = typeof recordingAttachments.$inferSelect;
export const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;
export { attachmentsDir } from '../data-files.ts';
import { attachmentsDir } from '../data-files.ts';

/** `3723000` ms → `01:02:03`. */
export function clock(durationMs: number): string {
  const total = Math.floor(durationMs / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

const startsWith = (bytes: Buffer, signature: number[], offset = 0) => signature.every((b, i) => bytes[offset + i] === b);
const ascii = (bytes: Buffer, text: string, offset = 0) => bytes.subarray(offset, offset + text.length).toString('latin1') === text;

/** Whether the bytes are what the declared MIME type says, by their magic numbers. */
export function matchesMimeType(bytes: Buffer, mimeType: string): boolean {
  switch (mimeType) {
    case 'video/webm':
    case 'audio/webm':
      return startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3]);
    case 'video/mp4':
      return ascii(bytes, 'ftyp', 4);
    case 'audio/ogg':
      return ascii(bytes, 'OggS');
    case 'audio/mpeg':
      return ascii(bytes, 'ID3') || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
    case 'audio/wav':
      return ascii(bytes, 'RIFF') && ascii(bytes, 'WAVE', 8);
    case 'image/png':
      return startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(bytes, [0xff, 0xd8, 0xff]);
    case 'image/gif':
      return ascii(bytes, 'GIF8');
    case 'image/webp':
      return ascii(bytes, 'RIFF') && ascii(bytes, 'WEBP', 8);
    default:
      return false;
  }
}

function describeAttachment(app: Pick<AppContext, 'publicUrl'>, row: AttachmentRow) {
  return { attachmentId: row.attachmentId, url: `${app.publicUrl}/attachments/${row.storageKey}`, mimeType: row.mimeType, name: row.name, type: row.type, size: row.size, version: row.version };
}

/** The attachments of some recordings (a JSON array of ids), by attachment id. */
const attachmentRows = compiledRows(recordingAttachments, (db, _shape: 'recordings', columns) =>
  db
    .select(columns)
    .from(recordingAttachments)
    .where(and(eq(recordingAttachments.apiKeyId, sql.placeholder('apiKeyId')), eq(recordingAttachments.organizationId, sql.placeholder('organizationId')), inJsonList(recordingAttachments.recordingId, 'recordingIds')))
    .orderBy(asc(recordingAttachments.attachmentId)),
);

function attachmentsOf(db: Db, apiKeyId: string, organizationId: string, recordingIds: string[]) {
  const byRecording = new Map<string, AttachmentRow[]>();
  if (recordingIds.length === 0) return byRecording;
  for (const row of attachmentRows(db, 'recordings', { apiKeyId, organizationId, recordingIds: JSON.stringify(recordingIds) })) {
    let list = byRecording.get(row.recordingId);
    if (!list) byRecording.set(row.recordingId, (list = []));
    list.push(row);
  }
  return byRecording;
}

/** The Recording resource of interface.md (plus `from`, `createdAt`, `lastUpdated`). */
export function describeRecording(app: Pick<AppContext, 'publicUrl' | 'db'>, row: RecordingRow, attachments?: AttachmentRow[]) {
  const files = attachments ?? attachmentsOf(app.db, row.apiKeyId, row.organizationId, [row.id]).get(row.id) ?? [];
  return {
    type: 'recorder',
    annotationId: row.id,
    recordingType: row.recordingType,
    mode: row.mode,
    displayName: row.displayName,
    metadata: { apiKey: row.apiKeyId, documentId: row.documentId, organizationId: row.organizationId },
    recordedTime: { duration: row.durationMs, display: clock(row.durationMs) },
    from: row.fromUser,
    attachments: files.map((f) => describeAttachment(app, f)),
    latestVersion: row.latestVersion,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
  };
}

const label = (user: { userId: string; name?: string | undefined }) => user.name || user.userId;

/**
 * /v2/recordings/add: a new recording, or (with an existing recordingId) a new version of it. Attachment bytes
 * are checked (size, allowed MIME type, magic numbers) and written under DATA_DIR/attachments before the rows
 * commit; a failed commit removes them, so there are neither orphan files nor rows without files.
 */
export function addRecording(app: AppContext, apiKey: ApiKeyRow, input: z.output<typeof recordingsAddInput>) {
  const r = input.recording;
  const files = r.attachments.map((a, i) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.data) || a.data.length % 4 !== 0) throw invalid(`recording.attachments[${i}].data is not valid base64.`);
    const bytes = Buffer.from(a.data, 'base64');
    if (bytes.length === 0) throw invalid(`recording.attachments[${i}] is empty.`);
    if (bytes.length > MAX_ATTACHMENT_BYTES) throw invalid(`recording.attachments[${i}] is larger than ${MAX_ATTACHMENT_BYTES} bytes.`);
    if (!matchesMimeType(bytes, a.mimeType)) throw invalid(`recording.attachments[${i}] is not a valid ${a.mimeType} file.`);
    return { ...a, bytes, storageKey: randomAlphanumeric(32), type: a.type ?? a.mimeType.split('/')[0] ?? 'file' };
  });
  const dir = attachmentsDir(app.config.dataDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // inside the try: a write that fails half-way (disk full) removes the files already written
    for (const f of files) writeFileSync(join(dir, f.storageKey), f.bytes, { mode: 0o600 });
    const recordingId = transaction(app.db, (tx) => {
      ensureOrganizationIn(tx, apiKey.id, input.organizationId, input.createOrganization ?? false);
      if (!findDocumentIn(tx, apiKey.id, input.organizationId, input.documentId)) {
        if (!input.createDocument) throw notFound(`Document does not exist: ${input.documentId}. Pass createDocument: true to create it.`);
        insertDocumentIn(tx, apiKey, input.organizationId, { documentId: input.documentId });
      }
      const id = r.recordingId ?? randomAlphanumeric(20);
      const where = and(eq(recordings.apiKeyId, apiKey.id), eq(recordings.organizationId, input.organizationId), eq(recordings.id, id));
      const existing = tx.select().from(recordings).where(where).get();
      const now = Date.now();
      const from = Object.fromEntries(Object.entries(r.from).filter(([, v]) => v !== undefined)) as RecordingRow['fromUser'];
      const version = existing ? existing.latestVersion + 1 : 1;
      if (existing) {
        if (existing.documentId !== input.documentId) throw invalid(`Recording ${id} belongs to document ${existing.documentId}.`);
        tx.update(recordings).set({ latestVersion: version, durationMs: r.recordedTime.duration, displayName: r.displayName ?? existing.displayName, updatedAt: now }).where(where).run();
      } else {
        tx.insert(recordings)
          .values({ apiKeyId: apiKey.id, organizationId: input.organizationId, id, documentId: input.documentId, recordingType: r.recordingType, mode: r.mode, displayName: r.displayName ?? '', durationMs: r.recordedTime.duration, fromUser: from, fromUserId: from.userId, latestVersion: 1, createdAt: now, updatedAt: now })
          .run();
      }
      const last = tx
        .select({ attachmentId: recordingAttachments.attachmentId })
        .from(recordingAttachments)
        .where(and(eq(recordingAttachments.apiKeyId, apiKey.id), eq(recordingAttachments.organizationId, input.organizationId), eq(recordingAttachments.recordingId, id)))
        .orderBy(desc(recordingAttachments.attachmentId))
        .get();
      let attachmentId = last?.attachmentId ?? 0;
      for (const f of files) {
        tx.insert(recordingAttachments)
          .values({ apiKeyId: apiKey.id, organizationId: input.organizationId, recordingId: id, attachmentId: ++attachmentId, version, name: f.name, type: f.type, mimeType: f.mimeType, size: f.bytes.length, sha256: createHash('sha256').update(f.bytes).digest('hex'), storageKey: f.storageKey, createdAt: now })
          .run();
      }
      recordActivityIn(tx, {
        apiKeyId: apiKey.id,
        organizationId: input.organizationId,
        documentId: input.documentId,
        featureType: 'recorder',
        actionType: existing ? 'recorder.update' : 'recorder.add',
        actionUser: from,
        targetEntityId: id,
        displayMessageTemplate: existing ? '{{actionUser}} added a new version of a recording' : '{{actionUser}} added a recording',
        displayMessageTemplateData: { actionUser: label(from) },
      });
      // recorder.done (reference.md 4.2 RecorderPayload): each stored version is a finished recording.
      const stored = tx.select().from(recordings).where(and(eq(recordings.apiKeyId, apiKey.id), eq(recordings.organizationId, input.organizationId), eq(recordings.id, id))).get();
      if (stored) {
        const all = attachmentsOf(tx, apiKey.id, input.organizationId, [id]).get(id) ?? [];
        const described = describeRecording({ publicUrl: app.publicUrl, db: tx }, stored, all);
        const latest = described.attachments.filter((a) => a.version === stored.latestVersion);
        const fields = { recorderId: id, from, assets: latest, assetsAllVersions: described.attachments, transcription: null, recording: described };
        emitEvent(tx, { apiKeyId: apiKey.id, type: 'recorder.done', organizationId: input.organizationId, documentId: input.documentId, actionUser: from, actionType: 'done', source: 'recorder', data: fields, basic: { actionType: 'done', notificationSource: 'recorder', fields } });
      }
      return id;
    });
    return { recordingId, ...describeRecording(app, app.db.select().from(recordings).where(and(eq(recordings.apiKeyId, apiKey.id), eq(recordings.organizationId, input.organizationId), eq(recordings.id, recordingId))).get() as RecordingRow) };
  } catch (error) {
    for (const f of files) rmSync(join(dir, f.storageKey), { force: true });
    throw error;
  }
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

/** /v2/recordings/get: newest first, keyset on (createdAt, id); by document and/or ids. */
export function getRecordings(app: AppContext, apiKeyId: string, input: z.output<typeof recordingsGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const scope = { op: 'recordings/get', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, pageToken, ['number', 'string']);
  const values: Record<string, unknown> = { apiKeyId, organizationId: input.organizationId, afterCreatedAt: cursor?.[0], afterId: cursor?.[1], documentId: input.documentId, limit: pageSize + 1 };
  listValues(values, 'id', input.recordingIds);
  const rows = recordingPage(app.db, `${cursor ? '+after' : ''}${input.documentId ? '+document' : ''}:${input.recordingIds?.length ?? 0}`, values);
  const page = paginate(rows, pageSize, (row) => [row.createdAt, row.id], app.pageTokens, scope);
  const files = attachmentsOf(app.db, apiKeyId, input.organizationId, page.items.map((r) => r.id));
  return { items: page.items.map((row) => describeRecording(app, row, files.get(row.id) ?? [])), pageToken: page.pageToken };
}

/** /v2/recordings/delete: rows (attachments by cascade), then their files; per-id outcomes. */
export function deleteRecordings(app: AppContext, apiKeyId: string, input: { organizationId: string; recordingIds: string[] }) {
  const keys: string[] = [];
  const out = transaction(app.db, (tx) => {
    const result: Record<string, { success: boolean; message: string }> = keyed();
    for (const recordingId of new Set(input.recordingIds)) {
      const where = and(eq(recordings.apiKeyId, apiKeyId), eq(recordings.organizationId, input.organizationId), eq(recordings.id, recordingId));
      const row = tx.select().from(recordings).where(where).get();
      if (!row) {
        result[recordingId] = { success: false, message: 'Recording does not exist.' };
        continue;
      }
      keys.push(...(attachmentsOf(tx, apiKeyId, input.organizationId, [recordingId]).get(recordingId) ?? []).map((a) => a.storageKey));
      tx.delete(recordings).where(where).run();
      recordActivityIn(tx, { apiKeyId, organizationId: input.organizationId, documentId: row.documentId, featureType: 'recorder', actionType: 'recorder.delete', actionUser: row.fromUser, targetEntityId: recordingId, displayMessageTemplate: '{{actionUser}} deleted a recording', displayMessageTemplateData: { actionUser: label(row.fromUser) } });
      result[recordingId] = { success: true, message: 'Recording deleted.' };
    }
    return result;
  });
  for (const key of keys) rmSync(join(attachmentsDir(app.config.dataDir), key), { force: true });
  return out;
}

/** The stored attachment behind an `/attachments/<key>` URL, or undefined. */
export function findAttachment(app: AppContext, storageKey: string) {
  if (!/^[A-Za-z0-9]{32}$/.test(storageKey)) return undefined;
  const row = app.db.select().from(recordingAttachments).where(eq(recordingAttachments.storageKey, storageKey)).get();
  return row ? { path: join(attachmentsDir(app.config.dataDir), row.storageKey), mimeType: row.mimeType, size: row.size } : undefined;
}

/** Removes attachment files that no row points at any more (a deleted document's, a crash between write and commit). */
export function sweepOrphanAttachments(app: Pick<AppContext, 'db' | 'config'>) {
  const dir = attachmentsDir(app.config.dataDir);
  if (!existsSync(dir)) return 0;
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const row = app.db.select({ key: recordingAttachments.storageKey }).from(recordingAttachments).where(eq(recordingAttachments.storageKey, name)).get();
    if (!row) {
      rmSync(join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}
