import { currentTime } from '../clock.ts';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { recordingsAddInput, recordingsGetInput } from '../../shared/schemas/recordings.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import type { AttachmentRow, RecordingRow } from '../db/repos/recordings.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import { recordActivity } from './activities.ts';
import { findDocument, insertDocument } from './documents.ts';
import { ensureOrganization } from './organizations.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';
import { keyed } from './keyed.ts';

export type { AttachmentRow, RecordingRow };
export const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;

type Deps = { storage: Storage };
/** Where a recording's attachment URLs point. */
type Urls = { publicUrl: string };

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

function describeAttachment(app: Urls, row: AttachmentRow) {
  return {
    attachmentId: row.attachmentId,
    url: `${app.publicUrl}/attachments/${row.storageKey}`,
    mimeType: row.mimeType,
    name: row.name,
    type: row.type,
    size: row.size,
    version: row.version,
  };
}

/** The Recording resource of interface.md (plus `from`, `createdAt`, `lastUpdated`), with its attachments by id. */
export function describeRecording(app: Urls, row: RecordingRow, attachments: readonly AttachmentRow[]) {
  return {
    type: 'recorder',
    annotationId: row.id,
    recordingType: row.recordingType,
    mode: row.mode,
    displayName: row.displayName,
    metadata: { apiKey: row.apiKeyId, documentId: row.documentId, organizationId: row.organizationId },
    recordedTime: { duration: row.durationMs, display: clock(row.durationMs) },
    from: row.fromUser,
    attachments: attachments.map((f) => describeAttachment(app, f)),
    latestVersion: row.latestVersion,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
  };
}

const label = (user: { userId: string; name?: string | undefined }) => user.name || user.userId;

/**
 * /v2/recordings/add: a new recording, or (with an existing recordingId) a new version of it. Attachment bytes
 * are checked (size, allowed MIME type, magic numbers) and stored (storage.attachments: files of the data dir, or
 * the database's) before the unit of work (no file I/O inside it); a failed commit removes them, so there are
 * neither orphan bytes nor rows without bytes.
 */
export async function addRecording(deps: Deps & Urls, scope: TenantScope, apiKey: ApiKeyRow, input: z.output<typeof recordingsAddInput>) {
  const r = input.recording;
  const files = r.attachments.map((a, i) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.data) || a.data.length % 4 !== 0) throw invalid(`recording.attachments[${i}].data is not valid base64.`);
    const bytes = Buffer.from(a.data, 'base64');
    if (bytes.length === 0) throw invalid(`recording.attachments[${i}] is empty.`);
    if (bytes.length > MAX_ATTACHMENT_BYTES) throw invalid(`recording.attachments[${i}] is larger than ${MAX_ATTACHMENT_BYTES} bytes.`);
    if (!matchesMimeType(bytes, a.mimeType)) throw invalid(`recording.attachments[${i}] is not a valid ${a.mimeType} file.`);
    return { ...a, bytes, storageKey: randomAlphanumeric(32), type: a.type ?? a.mimeType.split('/')[0] ?? 'file' };
  });
  // a put that fails half-way (disk full) removes what it stored itself
  await deps.storage.attachments.put(files.map((f) => ({ key: f.storageKey, bytes: f.bytes })));
  try {
    // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization's and the document's inserts ON
    // CONFLICT DO NOTHING, a caller's id under its key lock, and the organization's document data shared from BEGIN
    // (a delete of the document waits for this add and deletes the recording with it: "Fences")
    const recordingId = await deps.storage.transaction(
      async () => {
        await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
        if (!(await findDocument(deps, scope, input.organizationId, input.documentId))) {
          if (!input.createDocument) throw notFound(`Document does not exist: ${input.documentId}. Pass createDocument: true to create it.`);
          await insertDocument(deps, scope, apiKey, input.organizationId, { documentId: input.documentId });
        }
        const id = r.recordingId ?? randomAlphanumeric(20);
        // a caller's id is read under its key lock, so that two adds of it number their versions one after the other
        if (r.recordingId !== undefined) await deps.storage.recordings.lock(scope, input.organizationId, [id]);
        const existing = await deps.storage.recordings.find(scope, input.organizationId, id);
        const now = currentTime();
        const from = Object.fromEntries(Object.entries(r.from).filter(([, v]) => v !== undefined)) as RecordingRow['fromUser'];
        const version = existing ? existing.latestVersion + 1 : 1;
        if (existing && existing.documentId !== input.documentId) throw invalid(`Recording ${id} belongs to document ${existing.documentId}.`);
        const stored = files.map((f) => ({
          name: f.name,
          type: f.type,
          mimeType: f.mimeType,
          size: f.bytes.length,
          sha256: createHash('sha256').update(f.bytes).digest('hex'),
          storageKey: f.storageKey,
        }));
        await deps.storage.recordings.saveVersion(
          scope,
          input.organizationId,
          existing
            ? {
                id,
                change: { latestVersion: version, durationMs: r.recordedTime.duration, displayName: r.displayName ?? existing.displayName, updatedAt: now },
              }
            : {
                insert: {
                  id,
                  documentId: input.documentId,
                  recordingType: r.recordingType,
                  mode: r.mode,
                  displayName: r.displayName ?? '',
                  durationMs: r.recordedTime.duration,
                  fromUser: from,
                  fromUserId: from.userId,
                  latestVersion: 1,
                  createdAt: now,
                  updatedAt: now,
                },
              },
          { version, createdAt: now, files: stored },
        );
        await recordActivity(deps, scope, {
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
        const saved = await deps.storage.recordings.withAttachments(scope, input.organizationId, id);
        if (saved) {
          const described = describeRecording(deps, saved.row, saved.attachments);
          const latest = described.attachments.filter((a) => a.version === saved.row.latestVersion);
          const fields = { recorderId: id, from, assets: latest, assetsAllVersions: described.attachments, transcription: null, recording: described };
          await emitEvent(deps, scope, {
            type: 'recorder.done',
            organizationId: input.organizationId,
            documentId: input.documentId,
            actionUser: from,
            actionType: 'done',
            source: 'recorder',
            data: fields,
            basic: { actionType: 'done', notificationSource: 'recorder', fields },
          });
        }
        return id;
      },
      { rowLevel: true, addsToDocumentsOf: { scope, organizationId: input.organizationId } },
    );
    const saved = (await deps.storage.recordings.withAttachments(scope, input.organizationId, recordingId)) as {
      row: RecordingRow;
      attachments: AttachmentRow[];
    };
    return { recordingId, ...describeRecording(deps, saved.row, saved.attachments) };
  } catch (error) {
    await deps.storage.attachments.remove(files.map((f) => f.storageKey));
    throw error;
  }
}

/** /v2/recordings/get: newest first, keyset on (createdAt, id); by document and/or ids. */
export async function getRecordings(deps: Deps & Urls & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof recordingsGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const query = { op: 'recordings/get', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, query, pageToken, ['number', 'string']) as readonly [number, string] | null;
  const rows = await deps.storage.recordings.page(scope, input, cursor, pageSize + 1);
  const page = paginate(rows, pageSize, (row) => [row.createdAt, row.id], deps.pageTokens, query);
  const files = await deps.storage.recordings.attachments(
    scope,
    input.organizationId,
    page.items.map((r) => r.id),
  );
  return { items: page.items.map((row) => describeRecording(deps, row, files.get(row.id) ?? [])), pageToken: page.pageToken };
}

/** /v2/recordings/delete: rows (attachments by cascade), then their files; per-id outcomes. */
export async function deleteRecordings(deps: Deps, scope: TenantScope, input: { organizationId: string; recordingIds: string[] }) {
  const ids = [...new Set(input.recordingIds)];
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the ids' key locks (an add's), then the read of each
  // recording and its attachments, then its DELETE, whose count is the answer: a delete waits for an add of a new
  // version in flight and removes the files it added too
  const deleted = await deps.storage.transaction(
    async () => {
      await deps.storage.recordings.lock(scope, input.organizationId, ids);
      const gone = await deps.storage.recordings.delete(scope, input.organizationId, ids);
      for (const { row } of gone) {
        await recordActivity(deps, scope, {
          organizationId: input.organizationId,
          documentId: row.documentId,
          featureType: 'recorder',
          actionType: 'recorder.delete',
          actionUser: row.fromUser,
          targetEntityId: row.id,
          displayMessageTemplate: '{{actionUser}} deleted a recording',
          displayMessageTemplateData: { actionUser: label(row.fromUser) },
        });
      }
      return gone;
    },
    { rowLevel: true },
  );
  const removed = new Set(deleted.map((d) => d.row.id));
  const out: Record<string, { success: boolean; message: string }> = keyed();
  for (const id of ids) out[id] = removed.has(id) ? { success: true, message: 'Recording deleted.' } : { success: false, message: 'Recording does not exist.' };
  await deps.storage.attachments.remove(deleted.flatMap((d) => d.storageKeys));
  return out;
}

/** The stored attachment behind an `/attachments/<key>` URL (its row and its bytes), or undefined. */
export async function findAttachment(deps: Deps, storageKey: string) {
  if (!/^[A-Za-z0-9]{32}$/.test(storageKey)) return undefined;
  const row = await deps.storage.recordings.attachmentByStorageKey(storageKey);
  const bytes = row && (await deps.storage.attachments.get(row.storageKey));
  return row && bytes ? { bytes, mimeType: row.mimeType } : undefined;
}

/**
 * How long stored bytes may wait for the unit of work that records their row: the sweep leaves younger ones alone
 * (another instance of a cluster may be between the two), and takes the rest once no row points at them.
 */
export const ATTACHMENT_SWEEP_GRACE_MS = 10 * 60_000;

/**
 * Removes attachment bytes that no row points at any more (a deleted document's, a crash between the store and the
 * commit). The database's only instance, at its start, sweeps everything (nothing of its own is in flight); an
 * instance of a cluster only bytes older than ATTACHMENT_SWEEP_GRACE_MS, at its start and at each look for
 * expired leases.
 */
export async function sweepOrphanAttachments(deps: Deps & { cluster?: unknown }, now = currentTime()) {
  return deps.storage.attachments.sweep(deps.cluster ? now - ATTACHMENT_SWEEP_GRACE_MS : now);
}
