// logCovers (server/crdt/store.ts) reads each update's metadata instead of merging the log first (which took ~90 ms
// for a history of 1,000 updates on every compaction): it must answer as the merged log's metadata does, for logs
// from several clients, with gaps, deletions, a merged head, and unreadable updates. applyAll builds the same
// document as the merged log applied at once.
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyAll } from '../../server/crdt/build.ts';
import { logCovers } from '../../server/crdt/store.ts';

/** What logCovers answered before: the state vector of the snapshot against the metadata of the merged log. */
function coversByMerge(updates: Uint8Array[], snapshot: Uint8Array | null): boolean {
  if (!snapshot) return true;
  try {
    const wanted = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(snapshot));
    if (wanted.size === 0) return true;
    if (updates.length === 0) return false;
    const { from, to } = Y.parseUpdateMeta(updates.length === 1 ? (updates[0] as Uint8Array) : Y.mergeUpdates(updates));
    for (const [client, clock] of wanted) if (from.get(client) !== 0 || (to.get(client) ?? 0) < clock) return false;
    return true;
  } catch {
    return false;
  }
}

/** A seeded pseudo-random sequence (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two or three clients editing one text and one array, every update recorded in order. */
function history(seed: number, edits: number) {
  const next = random(seed);
  const docs = Array.from({ length: 2 + Math.floor(next() * 2) }, () => new Y.Doc());
  const log: Uint8Array[] = [];
  for (const doc of docs)
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === 'sync') return;
      log.push(update);
      for (const other of docs) if (other !== doc) Y.applyUpdate(other, update, 'sync');
    });
  for (let i = 0; i < edits; i++) {
    const doc = docs[Math.floor(next() * docs.length)] as Y.Doc;
    const text = doc.getText('t');
    if (next() < 0.25 && text.length > 2) text.delete(Math.floor(next() * (text.length - 1)), 1);
    else if (next() < 0.5) text.insert(Math.floor(next() * (text.length + 1)), String.fromCharCode(97 + (i % 26)));
    else doc.getArray<number>('a').push([i]);
  }
  const snapshotAt = (n: number) => {
    const doc = new Y.Doc();
    for (const update of log.slice(0, n)) Y.applyUpdate(doc, update);
    const snapshot = Y.encodeStateAsUpdate(doc);
    doc.destroy();
    return snapshot;
  };
  for (const doc of docs) doc.destroy();
  return { log, snapshotAt, next };
}

describe('logCovers', () => {
  it('answers as the merged log does, for 200 random logs and snapshots', () => {
    let covered = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const { log, snapshotAt, next } = history(seed, 5 + Math.floor((seed * 7) % 60));
      const snapshot = snapshotAt(Math.floor(next() * (log.length + 1)));
      // the log as compaction leaves it (a head merged into one row), a tail of it, or with rows left out
      const start = Math.floor(next() * 3) === 0 ? Math.floor(next() * log.length) : 0;
      let rows = log.slice(start);
      if (next() < 0.3 && rows.length > 2) rows = rows.filter(() => next() < 0.8);
      if (next() < 0.3 && rows.length > 3) rows = [Y.mergeUpdates(rows.slice(0, 3)), ...rows.slice(3)];
      const expected = coversByMerge(rows, snapshot);
      expect(logCovers(rows, snapshot), `seed ${seed}`).toBe(expected);
      if (expected) covered++;
    }
    // both answers occur among the cases
    expect(covered).toBeGreaterThan(20);
    expect(covered).toBeLessThan(180);
  });

  it('covers no snapshot and an empty one with any log; nothing with an empty log; not with an unreadable update', () => {
    const { log, snapshotAt } = history(7, 20);
    expect(logCovers([], null)).toBe(true);
    expect(logCovers([], snapshotAt(0))).toBe(true);
    expect(logCovers([], snapshotAt(5))).toBe(false);
    expect(logCovers(log, snapshotAt(log.length))).toBe(true);
    const broken = Uint8Array.from(log[1] as Uint8Array);
    broken[broken.length - 3] = 0xff;
    broken[1] = 0xff;
    expect(logCovers([log[0] as Uint8Array, broken, ...log.slice(2)], snapshotAt(log.length))).toBe(
      coversByMerge([log[0] as Uint8Array, broken, ...log.slice(2)], snapshotAt(log.length)),
    );
  });
});

describe('applyAll', () => {
  it('builds the document the merged log builds', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { log } = history(seed, 40);
      const one = new Y.Doc();
      Y.applyUpdate(one, Y.mergeUpdates(log));
      const two = new Y.Doc();
      applyAll(two, log);
      expect(two.getText('t').toString()).toBe(one.getText('t').toString());
      expect(two.getArray('a').toJSON()).toEqual(one.getArray('a').toJSON());
      expect(Y.encodeStateVector(two)).toEqual(Y.encodeStateVector(one));
      one.destroy();
      two.destroy();
    }
  });
});
