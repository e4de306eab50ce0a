// A flush's work is linear in the updates pending, whatever their number (issue 46). It merged them with
// Y.mergeUpdates, which sorts its decoders again for every struct it writes: once a writer outran the flush (an
// editing trace replayed open-loop), each flush merged a larger batch at a cost growing faster than the batch, and
// the server fell over a minute behind. No clock is read here (house rule): the work is counted. Every sort made
// while the updates are applied, queued, encoded and stored counts its comparisons (what grew superlinearly), no
// call of Y.mergeUpdates may merge the batch, and the bytes stored per update stay those of a small batch, from 10 to
// 100,000 updates pending at once. The stored log must rebuild the document exactly, batch after batch.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { createCrdtStore, type DocKey, MAX_BATCH_UPDATES } from '../../server/crdt/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const merges = vi.hoisted(() => ({ calls: 0, updates: 0 }));
vi.mock('yjs', async (importOriginal) => {
  const Yjs = await importOriginal<typeof import('yjs')>();
  return {
    ...Yjs,
    mergeUpdates: (updates: Uint8Array[]) => {
      merges.calls++;
      merges.updates += updates.length;
      return Yjs.mergeUpdates(updates);
    },
    mergeUpdatesV2: (updates: Uint8Array[]) => {
      merges.calls++;
      merges.updates += updates.length;
      return Yjs.mergeUpdatesV2(updates);
    },
  };
});

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

/**
 * `n` updates of a writer typing into `base` (the document as the server has it): one keystroke each, as y-websocket
 * sends them, mostly at the cursor, one in ten a backspace, the cursor jumping now and then.
 */
function keystrokes(base: Uint8Array, n: number, seed: number): Uint8Array[] {
  const writer = new Y.Doc();
  Y.applyUpdate(writer, base);
  const text = writer.getText('content');
  const next = random(seed);
  const out: Uint8Array[] = [];
  writer.on('update', (update: Uint8Array) => out.push(update));
  let cursor = text.length;
  for (let i = 0; i < n; i++) {
    if (next() < 0.02) cursor = Math.floor(next() * (text.length + 1));
    if (next() < 0.1 && cursor > 0) {
      text.delete(cursor - 1, 1);
      cursor--;
    } else {
      text.insert(cursor, String.fromCharCode(97 + Math.floor(next() * 26)));
      cursor++;
    }
  }
  writer.destroy();
  return out;
}

/** Runs `work` counting the comparisons of every Array.prototype.sort made meanwhile. */
async function countingSorts(work: () => Promise<void>): Promise<number> {
  const sort = Array.prototype.sort;
  let comparisons = 0;
  const defaultOrder = (a: unknown, b: unknown) => {
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  Array.prototype.sort = function <T>(this: T[], compare?: (a: T, b: T) => number) {
    const order = compare ?? defaultOrder;
    return sort.call(this, (a: T, b: T) => {
      comparisons++;
      return order(a, b);
    }) as T[];
  };
  try {
    await work();
  } finally {
    Array.prototype.sort = sort;
  }
  return comparisons;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ crdtIdleMs: 600_000 });
});
afterAll(() => t.close());

describe('CRDT flush cost', () => {
  it('stays flat per update from 10 to 100,000 updates pending at once, and the log rebuilds the document', { timeout: 240_000 }, async () => {
    const apiKeyId = t.credentials.apiKey;
    const scope = (await t.server.app.storage.keys.scopeFor(apiKeyId))!;
    const figures: Array<{ n: number; comparisons: number; bytes: number; rows: number }> = [];
    for (const [i, n] of [10, 100, 1_000, 10_000, 100_000].entries()) {
      const editorId = `e${n}`;
      await t.callK('/v2/crdt/add', { organizationId: 'o', documentId: 'd', editorId, type: 'text', data: 'seed text ' });
      const key: DocKey = { apiKeyId, organizationId: 'o', documentId: 'd', editorId };
      // no compaction in between (the log is read back as the flush stored it)
      const store = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 600_000, historyUpdates: 1_000_000 });
      try {
        const entry = (await store.load(scope, key))!;
        const rowsBefore = (await store.log(scope, key))!.entries.length;
        const updates = keystrokes(Y.encodeStateAsUpdate(entry.doc), n, 46 + i);
        const connection = { userId: 'writer' };
        merges.calls = 0;
        merges.updates = 0;
        // what a websocket connection does with each message (websocket.ts), all in one event-loop turn, then the flush
        const comparisons = await countingSorts(async () => {
          for (const update of updates) Y.applyUpdate(entry.doc, update, connection);
          await store.flush();
        });
        expect(merges, `Y.mergeUpdates merged ${merges.updates} updates in ${merges.calls} calls for a flush of ${n}`).toEqual({ calls: 0, updates: 0 });
        const log = (await store.log(scope, key))!;
        const rows = log.entries.slice(rowsBefore);
        // a batch's size is bounded: one row per MAX_BATCH_UPDATES updates at most
        expect(rows).toHaveLength(Math.ceil(n / MAX_BATCH_UPDATES));
        for (const row of rows) expect(store.authorOf(key, row.seq)).toBe('writer');
        // the log alone, as stored, is the document in memory
        const rebuilt = new Y.Doc();
        for (const row of log.entries) Y.applyUpdate(rebuilt, row.update);
        expect(rebuilt.getText('content').toString()).toBe(entry.doc.getText('content').toString());
        expect(Y.encodeStateVector(rebuilt)).toEqual(Y.encodeStateVector(entry.doc));
        expect(rebuilt.store.pendingStructs).toBeNull();
        rebuilt.destroy();
        figures.push({ n, comparisons, bytes: rows.reduce((sum, row) => sum + row.update.length, 0), rows: rows.length });
      } finally {
        store.close();
      }
    }
    console.log(
      `flush work: ${figures.map((f) => `${f.n} updates: ${(f.comparisons / f.n).toFixed(2)} comparisons and ${(f.bytes / f.n).toFixed(1)} bytes stored an update, ${f.rows} rows`).join('; ')}`,
    );
    const small = figures[0]!;
    for (const f of figures) {
      // Sorting the batch's deletions by clock is all that grows with it (n log n of one in ten updates: ~0.5 an
      // update here); Y.mergeUpdates sorted its decoders once per struct written: n / 2 comparisons an update
      // (5,000 an update for 10,000 updates, 7.8 s on this machine)
      expect(f.comparisons / f.n, JSON.stringify(figures)).toBeLessThanOrEqual(2);
      // bytes stored per update: those of a batch of 10, within a factor of 2
      expect(f.bytes / f.n, JSON.stringify(figures)).toBeLessThanOrEqual((2 * small.bytes) / small.n);
    }
  });
});
