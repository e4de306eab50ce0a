// Flushes run one after another on one promise chain (server/crdt/store.ts `flush`). A flush that fails after its
// write (here a broadcast that throws) fails its own callers; the flushes after it must still store and broadcast,
// and the turn's own flush (no caller) must not end as an unhandled rejection, which stops a Node process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createCrdtStore } from '../../server/crdt/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('CRDT flushes after a failed one', () => {
  it('still store and broadcast, whether the failed flush had a caller or was the turn’s own', async () => {
    const { storage, log } = t.server.app;
    const apiKeyId = t.credentials.apiKey;
    const scope = (await storage.keys.scopeFor(apiKeyId))!;
    const room = { organizationId: 'o', documentId: 'd', editorId: 'e' };
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'start' });
    const store = createCrdtStore({ storage, log }, { idleMs: 600_000 });
    const entry = (await store.load(scope, room))!;
    const writer = { userId: 'writer' };
    const sent: Uint8Array[] = [];
    let failures = 1;
    entry.broadcast = (message: Uint8Array) => {
      if (failures-- > 0) throw new Error('a socket that throws');
      sent.push(message);
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const type = (text: string) => entry.doc.transact(() => entry.doc.getText('content').insert(entry.doc.getText('content').length, text), writer);
      // a caller's flush that fails: its caller sees it
      type(' one');
      await expect(store.flush()).rejects.toThrow('a socket that throws');
      // the next ones go on
      type(' two');
      await store.flush();
      // the turn's own flush, failing, then a client's next keystroke
      failures = 1;
      type(' three');
      await new Promise((resolve) => setTimeout(resolve, 50));
      type(' four');
      await store.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      expect(sent.length).toBe(2);
      const stored = (await store.log(scope, room))!;
      const rebuilt = new Y.Doc();
      if (stored.snapshot) Y.applyUpdate(rebuilt, stored.snapshot);
      for (const row of stored.entries) Y.applyUpdate(rebuilt, row.update);
      expect(rebuilt.getText('content').toString()).toBe('start one two three four');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
