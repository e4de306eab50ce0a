// The CRDT store keeps a document's recent updates as history when it compacts (server/crdt/store.ts): the log
// alone rebuilds the document at every kept point, older updates are merged into the first kept row, and the
// document loads the same from snapshot + log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { configFromEnvAndArgs, resolveConfig } from '../../server/config.ts';
import { createCrdtStore, type DocKey } from '../../server/crdt/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ crdtIdleMs: 60_000 });
});
afterAll(() => t.close());

const rebuild = (updates: Uint8Array[]) => {
  const doc = new Y.Doc();
  for (const update of updates) Y.applyUpdate(doc, update);
  const text = doc.getText('content').toString();
  doc.destroy();
  return text;
};

describe('CRDT history retention', () => {
  it('keeps the newest updates through compactions, merges older ones into the first kept row, and loads the same', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'o', documentId: 'd', editorId: 'h', type: 'text', data: '' });
    const apiKeyId = t.credentials.apiKey;
    const key: DocKey = { apiKeyId, organizationId: 'o', documentId: 'd', editorId: 'h' };
    const scope = (await t.server.app.storage.keys.scopeFor(apiKeyId))!;
    const store = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 60_000, historyUpdates: 5 });
    try {
      // 12 separate stored updates, each appending one letter, and a compaction after each
      for (let i = 0; i < 12; i++) {
        const entry = (await store.load(scope, key))!;
        await store.transact(entry, { server: true, by: `writer-${i}` }, (doc) => doc.getText('content').insert(i, String.fromCharCode(97 + i)));
        await store.flushAll();
      }
      const log = (await store.log(scope, key))!;
      // 5 kept, plus the first row holding everything before them
      expect(log.entries).toHaveLength(6);
      expect(log.snapshot).not.toBeNull();
      const states = log.entries.map((_, i) => rebuild(log.entries.slice(0, i + 1).map((e) => e.update)));
      expect(states).toEqual(['abcdefg', 'abcdefgh', 'abcdefghi', 'abcdefghij', 'abcdefghijk', 'abcdefghijkl']);
      expect(store.authorOf(key, log.entries.at(-1)!.seq)).toBe('writer-11');
      // a fresh store (a restart) loads the same document from snapshot + log
      const fresh = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 60_000 });
      try {
        expect((await fresh.load(scope, key))!.doc.getText('content').toString()).toBe('abcdefghijkl');
      } finally {
        fresh.close();
      }
    } finally {
      store.close();
    }
  });

  it('starts the history of a document compacted without it (or seeded) from its snapshot', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'o', documentId: 'd', editorId: 'old', type: 'text', data: 'seed' });
    const key: DocKey = { apiKeyId: t.credentials.apiKey, organizationId: 'o', documentId: 'd', editorId: 'old' };
    const scope = (await t.server.app.storage.keys.scopeFor(t.credentials.apiKey))!;
    // compacted with no history kept: a snapshot and no log
    const without = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 60_000, historyUpdates: 0 });
    try {
      const entry = (await without.load(scope, key))!;
      await without.transact(entry, { server: true, by: 'rest-api' }, (doc) => doc.getText('content').insert(4, 'ed'));
      await without.flushAll();
      expect((await without.log(scope, key))!.entries).toHaveLength(0);
    } finally {
      without.close();
    }
    const store = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 60_000, historyUpdates: 10 });
    try {
      const entry = (await store.load(scope, key))!;
      await store.transact(entry, { server: true, by: 'rest-api' }, (doc) => doc.getText('content').insert(6, '!'));
      await store.transact(entry, { server: true, by: 'rest-api' }, (doc) => doc.getText('content').insert(7, '!'));
      await store.flushAll();
      const { entries } = (await store.log(scope, key))!;
      // the first row took the earlier snapshot in: the log alone rebuilds each point
      expect(entries.map((_, i) => rebuild(entries.slice(0, i + 1).map((e) => e.update)))).toEqual(['seeded!', 'seeded!!']);
    } finally {
      store.close();
    }
  });
});

describe('the crdtHistoryUpdates setting', () => {
  it('is read from CRDT_HISTORY_UPDATES, defaults to 1000, refuses a bad value, and reaches the store', async () => {
    expect(configFromEnvAndArgs({ CRDT_HISTORY_UPDATES: '25' }, {}).crdtHistoryUpdates).toBe(25);
    expect(resolveConfig({}).crdtHistoryUpdates).toBe(1000);
    expect(() => resolveConfig({ crdtHistoryUpdates: -1 })).toThrow(/crdtHistoryUpdates/);
    expect(t.server.app.crdt.historyUpdates).toBe(1000);
    const small = await startTestServer({ crdtHistoryUpdates: 3 });
    try {
      expect(small.server.app.crdt.historyUpdates).toBe(3);
    } finally {
      await small.close();
    }
  });
});
