// Building a Yjs document from stored updates, robustly (a corrupted update is left out), on the event loop or in
// the Yjs worker thread (yjs-worker.ts): store.ts loads and compacts with these, events.ts renders with applyAll.
import * as Y from 'yjs';

/**
 * Applies `updates` to `doc` in one transaction, one after another: linear in their number, where Y.mergeUpdates of
 * a long log is not (3,000 small updates took ~400 ms to merge on this machine, against 20–30 ms applied).
 */
export function applyAll(doc: Y.Doc, updates: readonly Uint8Array[]) {
  doc.transact(() => {
    for (const update of updates) Y.applyUpdate(doc, update);
  });
}

/**
 * A document built from `base` (a snapshot, or null) and `updates`. Should they not apply together (Yjs trusts its
 * peers, and a client's corrupted updates can make that fail), they are applied one by one and any that fails is
 * left out (`onLeftOut` hears of each), so that a document always builds. Throws when `base` cannot be applied.
 */
export function buildDoc(base: Uint8Array | null, updates: readonly Uint8Array[], onLeftOut: (error: unknown) => void = () => undefined): Y.Doc {
  const doc = new Y.Doc({ gc: true });
  if (base) Y.applyUpdate(doc, base);
  if (updates.length === 0) return doc;
  try {
    applyAll(doc, updates);
    return doc;
  } catch {
    doc.destroy();
  }
  const again = new Y.Doc({ gc: true });
  if (base) Y.applyUpdate(again, base);
  for (const update of updates) {
    try {
      Y.applyUpdate(again, update);
    } catch (error) {
      onLeftOut(error);
    }
  }
  return again;
}

/** Updates merged into one (a corrupted one is left out), through a document: the state they build. */
export function mergeNow(updates: Uint8Array[]): Uint8Array {
  if (updates.length === 1) return updates[0] as Uint8Array;
  const doc = buildDoc(null, updates);
  try {
    return Y.encodeStateAsUpdate(doc);
  } finally {
    doc.destroy();
  }
}
