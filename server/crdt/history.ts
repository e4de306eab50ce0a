// A document's history from its stored update log (kept by store.ts through compaction): the entries (when, who,
// how big), the document as it was after any of them, and restore of such a state, applied as a new update
// through the server-side edit helper so that connected clients converge on it.
import * as Y from 'yjs';
import { readContent, type CrdtType } from './content.ts';
import type { TenantScope } from '../db/scope.ts';
import { logCovers, type CrdtStore, type DocKey, type LogEntry } from './store.ts';

export interface HistoryEntryInfo {
  seq: number;
  at: number;
  bytes: number;
  by: string;
  merged: boolean;
}

/** The log's entries; the first holds everything before it when the log was trimmed (or a snapshot taken in). */
export async function historyOf(store: CrdtStore, scope: TenantScope, key: DocKey): Promise<{ entries: HistoryEntryInfo[]; snapshotBytes: number } | null> {
  const log = await store.log(scope, key);
  if (!log) return null;
  const updates = log.entries.map((e) => e.update);
  const selfContained = logCovers(updates, log.snapshot);
  return {
    snapshotBytes: log.snapshot?.length ?? 0,
    entries: log.entries.map((e, i) => ({
      seq: e.seq,
      at: e.createdAt,
      bytes: e.update.length,
      by: store.authorOf(key, e.seq) ?? clientsOf(e),
      merged: i === 0 && selfContained && log.snapshot !== null,
    })),
  };
}

function clientsOf(entry: LogEntry): string {
  try {
    const clients = [...Y.parseUpdateMeta(entry.update).from.keys()];
    return clients.length ? `Yjs client ${clients.join(', ')}` : 'deletions only';
  } catch {
    return 'unreadable update';
  }
}

/**
 * The document as it was right after the entry `seq` (undefined: as stored now). A log that does not rebuild the
 * document alone (never compacted with history) starts from the snapshot. Null when there is no such document or
 * entry. The caller destroys the returned document.
 */
export async function stateAt(store: CrdtStore, scope: TenantScope, key: DocKey, seq?: number): Promise<Y.Doc | null> {
  const log = await store.log(scope, key);
  if (!log) return null;
  const upTo = seq === undefined ? log.entries.length : log.entries.findIndex((e) => e.seq === seq) + 1;
  if (seq !== undefined && upTo === 0) return null;
  const doc = new Y.Doc({ gc: true });
  const updates = log.entries.map((e) => e.update);
  if (seq === undefined || !logCovers(updates, log.snapshot)) {
    if (log.snapshot) Y.applyUpdate(doc, log.snapshot);
  }
  for (const update of updates.slice(0, upTo)) {
    try {
      Y.applyUpdate(doc, update);
    } catch {
      // a corrupted stored update is left out, as loading does
    }
  }
  return doc;
}

export function contentAt(doc: Y.Doc, type: CrdtType, contentKey: string) {
  return readContent(doc, type, contentKey);
}

const copy = (value: unknown): unknown => (value instanceof Y.AbstractType ? value.clone() : value);

/** Makes `target` hold what `past` holds, in the current transaction (ordinary CRDT operations). */
function replaceRoot(target: Y.AbstractType<never>, past: Y.Doc, name: string) {
  if (target instanceof Y.Text) {
    const then = past.getText(name);
    target.delete(0, target.length);
    target.applyDelta(then.toDelta());
  } else if (target instanceof Y.XmlFragment) {
    const then = past.getXmlFragment(name);
    target.delete(0, target.length);
    target.insert(
      0,
      then.toArray().flatMap((node) => (node instanceof Y.XmlElement || node instanceof Y.XmlText ? [node.clone()] : [])),
    );
  } else if (target instanceof Y.Array) {
    const then = past.getArray<unknown>(name);
    target.delete(0, target.length);
    target.insert(0, then.toArray().map(copy) as never[]);
  } else if (target instanceof Y.Map) {
    const then = past.getMap<unknown>(name);
    for (const k of [...target.keys()]) if (!then.has(k)) target.delete(k);
    for (const [k, v] of then.entries()) target.set(k, copy(v) as never);
  }
}

/**
 * Restores the document as it was after entry `seq`: the live document's content root (and every other root the
 * live document already reads as a known kind) is made equal to the past one's, in one transaction with the
 * origin `admin-restore`. Stored, broadcast and reported like any server-side edit. Returns the new update's size.
 */
export async function restoreState(store: CrdtStore, scope: TenantScope, key: DocKey, seq: number): Promise<number | null> {
  const past = await stateAt(store, scope, key, seq);
  if (!past) return null;
  try {
    const entry = await store.load(scope, key);
    if (!entry) return null;
    let size = 0;
    const measure = (update: Uint8Array) => (size += update.length);
    entry.doc.on('update', measure);
    try {
      await store.transact(entry, { server: true, by: 'admin-restore' }, (doc) => {
        // the content root as its stored kind, so that it exists in the live document
        const roots = new Set([entry.contentKey, ...past.share.keys()]);
        for (const name of roots) {
          if (name === entry.contentKey) {
            const target =
              entry.type === 'text'
                ? doc.getText(name)
                : entry.type === 'map'
                  ? doc.getMap(name)
                  : entry.type === 'array'
                    ? doc.getArray(name)
                    : doc.getXmlFragment(name);
            // the past document reads its root as the same kind
            if (entry.type === 'text') past.getText(name);
            else if (entry.type === 'map') past.getMap(name);
            else if (entry.type === 'array') past.getArray(name);
            else past.getXmlFragment(name);
            replaceRoot(target as unknown as Y.AbstractType<never>, past, name);
          } else {
            const live = doc.share.get(name);
            if (live instanceof Y.Text || live instanceof Y.Map || live instanceof Y.Array || live instanceof Y.XmlFragment)
              replaceRoot(live as unknown as Y.AbstractType<never>, past, name);
          }
        }
      });
    } finally {
      entry.doc.off('update', measure);
    }
    return size;
  } finally {
    past.destroy();
  }
}
