import { currentTime } from '../clock.ts';
import * as Y from 'yjs';
import type { Config } from '../config.ts';
import type { CrdtRow } from '../db/repos/crdt.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import type { DebouncedResolver } from '../webhooks/dispatcher.ts';
import { openDebouncedEvent } from '../webhooks/outbox.ts';
import { emptyContent, readContent } from './content.ts';
import { renderStored } from './offload.ts';
import { applyAll } from './build.ts';
import type { CrdtStore, DocKey } from './store.ts';

const dedupeKey = (k: DocKey) => `crdt:${JSON.stringify([k.organizationId, k.documentId, k.editorId])}`;

function keyOf(apiKeyId: string, key: string | null): DocKey | null {
  if (!key?.startsWith('crdt:')) return null;
  const parts: unknown = JSON.parse(key.slice('crdt:'.length));
  if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((p) => typeof p === 'string')) return null;
  const [organizationId, documentId, editorId] = parts as [string, string, string];
  return { apiKeyId, organizationId, documentId, editorId };
}

/**
 * The item of a stored row, its content read from `doc`. A room whose kind is still to be learned holds nothing
 * live yet: it reads as empty, and defines no root.
 */
const describe = (row: CrdtRow, doc: Y.Doc | null) => ({
  data: row.infer || !doc ? emptyContent(row.type) : readContent(doc, row.type, row.contentKey),
  id: row.editorId,
  type: row.type,
  contentKey: row.contentKey,
  lastUpdate: new Date(row.updatedAt).toISOString(),
  lastUpdatedBy: row.lastUpdatedBy,
  sessionId: null,
});

/** The `/v2/crdt/get` item of a stored editor (reference.md 5.3), from the live document. */
export async function crdtItem(store: CrdtStore, scope: TenantScope, room: Omit<DocKey, 'apiKeyId'>) {
  const entry = await store.load(scope, room);
  const row = await store.find(scope, room);
  if (!entry || !row) return null;
  return describe(row, entry.doc);
}

/**
 * The item of a stored row and its update log (snapshot + log): every acknowledged change is there. A large document
 * is rebuilt and rendered in the Yjs worker thread (offload.ts), not on the event loop.
 */
async function itemOfStored(stored: { row: CrdtRow; log: Array<{ update: Uint8Array }> }) {
  const { row } = stored;
  const updates = stored.log.map((u) => u.update);
  const data = await renderStored({ snapshot: row.snapshot, log: updates }, { type: row.type, contentKey: row.contentKey, infer: Boolean(row.infer) }, () => {
    const doc = new Y.Doc();
    try {
      if (row.snapshot) Y.applyUpdate(doc, row.snapshot);
      applyAll(doc, updates);
      return describe(row, doc).data;
    } finally {
      doc.destroy();
    }
  });
  return { ...describe(row, null), data };
}

/** The same item read from storage alone, in the caller's unit of work (the webhook dispatcher's). */
export async function storedCrdtItem(storage: Storage, scope: TenantScope, room: Omit<DocKey, 'apiKeyId'>) {
  const stored = await storage.crdt.stored(scope, room);
  return stored ? await itemOfStored(stored) : null;
}

/**
 * `crdt.update_data`, debounced per document (reference.md 4.1), on the writing side: the first change of a burst
 * opens one pending outbox row in the change's own transaction (so a crash cannot lose it); the outbox's unique
 * pending key keeps it to one. Changes within `crdtDebounceMs` of the last check skip even that lookup.
 */
export function createCrdtChangeFeed(config: Pick<Config, 'webhooks'>, storage: Storage) {
  const debounce = config.webhooks.crdtDebounceMs;
  const checkedAt = new Map<string, number>();
  return {
    /** Called in the unit of work that appends a change. */
    async onChange(scope: TenantScope, key: DocKey, now: number) {
      const id = JSON.stringify([key.apiKeyId, key.organizationId, key.documentId, key.editorId]);
      const last = checkedAt.get(id);
      if (last !== undefined && now - last < debounce) return;
      if (checkedAt.size > 100_000) checkedAt.clear();
      // once the unit of work commits: a unit PostgreSQL runs again must not find its own first attempt's mark
      storage.afterCommit(() => checkedAt.set(id, now));
      await openDebouncedEvent({ storage }, scope, {
        type: 'crdt.update_data',
        organizationId: key.organizationId,
        documentId: key.documentId,
        dedupeKey: dedupeKey(key),
        createdAt: now,
        availableAt: now + debounce,
      });
    },
  };
}

export type CrdtChangeFeed = ReturnType<typeof createCrdtChangeFeed>;

/**
 * The delivery side: when the pending row falls due, a document still being edited (its stored `updatedAt`
 * within the debounce) waits longer, at most `crdtMaxWaitMs` after the burst began; otherwise the event carries
 * the document as stored then. Reads only SQLite, so it runs wherever the dispatcher runs.
 */
export function crdtEventResolver(config: Pick<Config, 'webhooks'>): DebouncedResolver {
  const { crdtDebounceMs: debounce, crdtMaxWaitMs: maxWait } = config.webhooks;
  return async (row, scope, storage) => {
    const key = keyOf(row.apiKeyId, row.dedupeKey);
    if (!key) return null;
    const now = currentTime();
    // The time of the last change decides first: the document is rebuilt from storage only for the event itself,
    // not on each postponement while it is being edited (a large document every few seconds, all garbage).
    const stored = await storage.crdt.head(scope, key);
    if (!stored) return null;
    const lastChange = stored.updatedAt;
    // A follow-up opened when a burst was cut (below) with no change since: nothing new to report. (A row opened
    // by a change has its createdAt equal to that change's time.)
    if (lastChange < row.createdAt) return null;
    if (now < lastChange + debounce && now < row.createdAt + maxWait) return { postponeUntil: Math.min(lastChange + debounce, row.createdAt + maxWait) };
    const crdtData = await storedCrdtItem(storage, scope, key);
    if (!crdtData) return null;
    const actionUser = crdtData.lastUpdatedBy ? { userId: crdtData.lastUpdatedBy } : null;
    // Cut by the maximum wait while edits go on: the next event covers what comes after this one.
    const stillEditing = now < lastChange + debounce;
    return {
      ...(stillEditing ? { followUpAt: now + debounce } : {}),
      event: {
        type: 'crdt.update_data',
        organizationId: key.organizationId,
        documentId: key.documentId,
        actionUser,
        actionType: 'updateData',
        source: 'crdt',
        data: { crdtData },
        basic: { actionType: 'updateData', notificationSource: 'crdt', fields: { crdtData } },
      },
    };
  };
}
