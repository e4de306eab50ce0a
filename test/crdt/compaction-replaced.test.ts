// A compaction never writes a document over the room that replaced it (issue 42's review). A compaction reads and
// checks its snapshot first (a large one in the worker thread, over turns), then waits for its unit of work; an admin
// import or reset that commits in between replaces the room's rows and drops the loaded document after its commit.
// The compaction's unit must then write nothing: not the old snapshot over the new row, not a deleted log. Here a
// held unit of work plays the reset (the room's row deleted and made again with other content), the compaction
// waits for it, and the room must answer the new content afterwards, on both engines (test:pg runs test/crdt too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createCrdtStore, type DocKey } from '../../server/crdt/store.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('CRDT compaction and a replaced room', () => {
  it('writes nothing over a room that an import or reset replaced while the compaction waited for its unit of work', async () => {
    const { storage, log } = t.server.app;
    const apiKeyId = t.credentials.apiKey;
    const scope = (await storage.keys.scopeFor(apiKeyId))!;
    const room = { organizationId: 'o', documentId: 'd', editorId: 'e' };
    const key: DocKey = { apiKeyId, ...room };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'old text' });
    const store = createCrdtStore({ storage, log }, { idleMs: 600_000 });
    const entry = (await store.load(scope, room))!;
    // updates in the log since the snapshot: what a compaction folds in
    entry.doc.getText('content').insert(8, ', edited', { userId: 'writer' });
    await store.flush();

    // the "reset": one unit of work that replaces the room's row with another document, held open
    const replacement = new Y.Doc();
    replacement.getText('content').insert(0, 'new text after the reset');
    let release!: () => void;
    let replaced!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rowsReplaced = new Promise<void>((resolve) => (replaced = resolve));
    const reset = storage.transaction(async () => {
      await storage.crdt.remove(scope, room);
      await storage.crdt.create(scope, room, { type: 'text', contentKey: 'content', infer: 0, now: Date.now() + 1_000 });
      await storage.crdt.setSnapshot(scope, room, Y.encodeStateAsUpdate(replacement), Date.now());
      storage.afterCommit(() => store.forget(key));
      replaced();
      await held;
    });
    await rowsReplaced;
    // shutdown's compaction of every loaded document with a log: its check passes (the old row is what the other
    // connections still read), then it waits for its unit of work behind the reset
    const compacting = store.flushAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await reset;
    await compacting;

    const stored = await storage.crdt.stored(scope, room);
    const rebuilt = new Y.Doc();
    if (stored?.row.snapshot) Y.applyUpdate(rebuilt, stored.row.snapshot);
    for (const row of stored?.log ?? []) Y.applyUpdate(rebuilt, row.update);
    expect(rebuilt.getText('content').toString()).toBe('new text after the reset');
    // and as a client reads it, through the server's own store
    const [item] = dataOf<Array<{ data: string }>>(await t.callK('/v2/crdt/get', room));
    expect(item?.data).toBe('new text after the reset');
  });
});
