// The idle sweep compacts a document before it unloads it, and the compaction may wait (for its unit of work, for
// the worker thread). A REST call that takes the document up meanwhile (a read, then a write through `transact`)
// holds the loaded document: the sweep must see that activity after the compaction and keep the document, or the
// write lands in a destroyed Y.Doc that stores nothing while the call answers success (the review's finding).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createCrdtStore } from '../../server/crdt/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CRDT idle unload', () => {
  it('keeps a document taken up while its compaction waited, and the write made through it is stored', async () => {
    const { storage, log } = t.server.app;
    const scope = (await storage.keys.scopeFor(t.credentials.apiKey))!;
    const room = { organizationId: 'o', documentId: 'd', editorId: 'e' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'start' });
    const store = createCrdtStore({ storage, log }, { idleMs: 100 });
    const entry = (await store.load(scope, room))!;
    entry.doc.transact(() => entry.doc.getText('content').insert(5, ' typed'), { userId: 'writer' });
    await store.flush();

    // another unit of work holds the writer's turn (SQLite) and the document's row (PostgreSQL), so that the sweep's
    // compaction waits behind it
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const other = storage.transaction(async () => {
      await storage.crdt.settle(scope, room, 'text', 'content');
      await held;
    });
    // idle for 100 ms, swept every 100 ms: the sweep has begun its compaction
    await pause(400);
    expect(store.loaded(scope, room)).toBe(entry);
    // a REST call takes the document up meanwhile
    const taken = (await store.load(scope, room))!;
    expect(taken).toBe(entry);
    release();
    await other;
    await pause(50);
    await store.transact(taken, { server: true, by: 'rest' }, (doc) => doc.getText('content').insert(0, 'REST: '));

    const stored = (await store.log(scope, room))!;
    const rebuilt = new Y.Doc();
    if (stored.snapshot) Y.applyUpdate(rebuilt, stored.snapshot);
    for (const row of stored.entries) Y.applyUpdate(rebuilt, row.update);
    expect(rebuilt.getText('content').toString()).toBe('REST: start typed');
  });
});
