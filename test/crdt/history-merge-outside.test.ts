// A compaction that trims a large history merges the oldest updates in the Yjs worker thread, which may take a while
// for a large document; on one instance it does so before its unit of work, never inside it, where it would hold the
// writer that every tenant's writes wait for (the review's finding). And what it writes is what it planned: the log,
// trimmed to the newest updates, still rebuilds the document at every kept point.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const merges = vi.hoisted(() => ({ inUnit: [] as boolean[], probe: (): boolean => false }));
vi.mock('../../server/crdt/offload.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../server/crdt/offload.ts')>();
  return {
    ...original,
    mergeOffThread: (updates: Uint8Array[]) => {
      merges.inUnit.push(merges.probe());
      return original.mergeOffThread(updates);
    },
  };
});
const { createCrdtStore } = await import('../../server/crdt/store.ts');

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('CRDT history trim', () => {
  it('merges a large history outside the unit of work, and the trimmed log rebuilds the document', async () => {
    const { storage, log } = t.server.app;
    merges.probe = () => storage.inTransaction();
    const scope = (await storage.keys.scopeFor(t.credentials.apiKey))!;
    const room = { organizationId: 'o', documentId: 'd', editorId: 'e' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: '' });
    const store = createCrdtStore({ storage, log }, { idleMs: 600_000, historyUpdates: 5 });
    const entry = (await store.load(scope, room))!;
    const text = entry.doc.getText('content');
    // 30 updates of 4 KB: the 25 oldest (100 KB, past the worker's threshold) are merged into one row
    for (let n = 0; n < 30; n++) {
      entry.doc.transact(() => text.insert(text.length, `${n}:${'x'.repeat(4_000)}\n`), { userId: 'writer' });
      await store.flush();
    }
    const before = (await store.log(scope, room))!;
    await store.flushAll();
    expect(merges.inUnit).toEqual([false]);
    const after = (await store.log(scope, room))!;
    // the oldest rows merged into the first kept one, the newest 5 as they were
    expect(after.entries).toHaveLength(6);
    expect(after.entries.slice(1).map((r) => r.seq)).toEqual(before.entries.slice(-5).map((r) => r.seq));
    const rebuilt = new Y.Doc();
    for (const row of after.entries) Y.applyUpdate(rebuilt, row.update);
    expect(rebuilt.getText('content').toString()).toBe(text.toString());
    expect(after.snapshot).not.toBeNull();
    const fromSnapshot = new Y.Doc();
    Y.applyUpdate(fromSnapshot, after.snapshot!);
    expect(fromSnapshot.getText('content').toString()).toBe(text.toString());
  });

  it('writes no trim planned from a log that changed before its unit of work, and loses nothing', async () => {
    const { storage, log } = t.server.app;
    const scope = (await storage.keys.scopeFor(t.credentials.apiKey))!;
    const room = { organizationId: 'o', documentId: 'd2', editorId: 'e' };
    const created = await t.callK('/v2/crdt/add', { ...room, type: 'text', data: '' });
    expect(created.status).toBe(200);
    const store = createCrdtStore({ storage, log }, { idleMs: 600_000, historyUpdates: 2 });
    const entry = (await store.load(scope, room))!;
    const text = entry.doc.getText('content');
    for (let n = 0; n < 6; n++) {
      entry.doc.transact(() => text.insert(text.length, `${n} `), { userId: 'writer' });
      await store.flush();
    }
    // another writer's update, appended by a unit of work the compaction waits behind (planned without it)
    const other = new Y.Doc();
    Y.applyUpdate(other, Y.encodeStateAsUpdate(entry.doc));
    const extra: Uint8Array[] = [];
    other.on('update', (update: Uint8Array) => extra.push(update));
    other.getText('content').insert(0, 'other: ');
    const head = (await storage.crdt.head(scope, room))!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const rowAppended = new Promise<void>((resolve) => (appended = resolve));
    const writer = storage.transaction(async () => {
      await storage.crdt.append([{ scope, room, rowCreatedAt: head.createdAt, update: extra[0]!, lastUpdatedBy: 'other' }], Date.now());
      appended();
      await held;
    });
    await rowAppended;
    const compacting = store.flushAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await writer;
    await compacting;
    const stored = (await store.log(scope, room))!;
    // the log kept whole (nothing merged), the snapshot stored: together they hold both writers' text
    expect(stored.entries.length).toBe(7);
    const rebuilt = new Y.Doc();
    Y.applyUpdate(rebuilt, stored.snapshot!);
    for (const row of stored.entries) Y.applyUpdate(rebuilt, row.update);
    expect(rebuilt.getText('content').toString()).toBe('other: 0 1 2 3 4 5 ');
  });
});
