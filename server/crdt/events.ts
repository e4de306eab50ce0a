import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Debounced } from '../webhooks/dispatcher.ts';
import { openDebouncedEvent } from '../webhooks/outbox.ts';
import { readContent } from './content.ts';
import type { CrdtStore, DocKey } from './store.ts';

interface Window {
  firstAt: number;
  lastAt: number;
  /** An outbox row is pending for this window (false: nobody subscribed when it opened). */
  opened: boolean;
}

const dedupeKey = (k: DocKey) => `crdt:${JSON.stringify([k.organizationId, k.documentId, k.editorId])}`;

function keyOf(apiKeyId: string, key: string | null): DocKey | null {
  if (!key?.startsWith('crdt:')) return null;
  const parts: unknown = JSON.parse(key.slice('crdt:'.length));
  if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((p) => typeof p === 'string')) return null;
  const [organizationId, documentId, editorId] = parts as [string, string, string];
  return { apiKeyId, organizationId, documentId, editorId };
}

/** The `/v2/crdt/get` item of a stored editor (reference.md 5.3); also the `crdtData` of `crdt.update_data`. */
export function crdtItem(store: CrdtStore, key: DocKey) {
  const entry = store.load(key);
  const row = store.find(key);
  if (!entry || !row) return null;
  return {
    data: readContent(entry.doc, entry.type, entry.contentKey),
    id: key.editorId,
    type: entry.type,
    contentKey: entry.contentKey,
    lastUpdate: new Date(row.updatedAt).toISOString(),
    lastUpdatedBy: row.lastUpdatedBy,
    sessionId: null,
  };
}

/**
 * `crdt.update_data`, debounced per document (reference.md 4.1): the first change of a burst opens one pending
 * outbox row in the change's own transaction (so a crash cannot lose it); later changes only move the window in
 * memory. When the row falls due the dispatcher asks `resolve`: still being edited → later (at most `crdtMaxWaitMs`
 * after the first change); otherwise the event carries the document as it is then.
 */
export function createCrdtChangeFeed(config: Pick<Config, 'webhooks'>) {
  const { crdtDebounceMs: debounce, crdtMaxWaitMs: maxWait } = config.webhooks;
  const windows = new Map<string, Window>();
  let store: CrdtStore | undefined;

  return {
    attach(crdt: CrdtStore) {
      store = crdt;
    },

    /** Called in the transaction that appends a change. */
    onChange(tx: Db, key: DocKey, now: number) {
      const id = JSON.stringify([key.apiKeyId, dedupeKey(key)]);
      const open = windows.get(id);
      if (open && (open.opened || now - open.firstAt < debounce)) {
        open.lastAt = now;
        return;
      }
      const opened = openDebouncedEvent(tx, { apiKeyId: key.apiKeyId, type: 'crdt.update_data', organizationId: key.organizationId, documentId: key.documentId, dedupeKey: dedupeKey(key), availableAt: now + debounce });
      windows.set(id, { firstAt: now, lastAt: now, opened });
    },

    resolve(row: { apiKeyId: string; dedupeKey: string | null }): Debounced {
      const key = keyOf(row.apiKeyId, row.dedupeKey);
      if (!key || !store) return null;
      const id = JSON.stringify([key.apiKeyId, dedupeKey(key)]);
      const window = windows.get(id);
      const now = Date.now();
      if (window && now < window.lastAt + debounce && now < window.firstAt + maxWait) {
        return { postponeUntil: Math.min(window.lastAt + debounce, window.firstAt + maxWait) };
      }
      windows.delete(id);
      const crdtData = crdtItem(store, key);
      if (!crdtData) return null;
      const actionUser = crdtData.lastUpdatedBy ? { userId: crdtData.lastUpdatedBy } : null;
      return {
        event: {
          apiKeyId: key.apiKeyId,
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
    },

    /** Windows still open (not yet reported). */
    size: () => windows.size,
  };
}

export type CrdtChangeFeed = ReturnType<typeof createCrdtChangeFeed>;
