// Yjs trusts its peers: a client that sends corrupted updates (valid ones with a byte changed) can leave a loaded
// document whose own snapshot (encodeStateAsUpdate) no longer reproduces it: content lost on reload, or a
// snapshot that throws when loaded. Found by fuzzing the websocket. The store checks every snapshot before it
// compacts into it and keeps the update log (which does reproduce the document) when the check fails.
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { createCrdtStore, type DocKey } from '../../server/crdt/store.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { corruptedMessages, yjsMessage } from '../helpers/yjs.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

const SEED = Number(process.env.SEED ?? 1);
const ROUNDS = 30;
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ crdtIdleMs: 60_000 });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'o', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/crdt/add', { organizationId: 'o', documentId: 'd', editorId: 'e', type: 'text', data: 'hello' });
});
afterAll(() => t.close());

/** A client's edits of a text, a map and an array, as the updates it sends. */
function clientUpdates(clientId: number): Uint8Array[] {
  const doc = new Y.Doc();
  doc.clientID = clientId;
  const updates: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => updates.push(update));
  const text = doc.getText('content');
  for (let i = 0; i < 20; i++) {
    if (i % 3 === 2 && text.length > 2) text.delete(1, 1);
    else text.insert(Math.min(i, text.length), `ab${i}`);
    doc.getMap('m').set(`k${i}`, { x: i, s: `v${i}` });
    doc.getArray('a').insert(0, [i, 'z', { q: [1, 2] }]);
  }
  return updates;
}

/**
 * The content of the types the clients edit, as JSON; the map's keys sorted: their order in toJSON() is the order the
 * document happened to integrate them in, which a document loaded from a snapshot need not share.
 */
const contentOf = (doc: Y.Doc) =>
  JSON.stringify(
    [doc.getText('content').toString(), Object.entries(doc.getMap('m').toJSON()).sort(([a], [b]) => (a < b ? -1 : 1)), doc.getArray('a').toJSON()],
    (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value),
  );

describe('corrupted client updates', () => {
  it('leave a stored document that loads, and is the document in memory after each compaction', async () => {
    const app = t.server.app;
    const apiKeyId = (sqliteEngineOf(app.storage).main.sqlite.prepare('SELECT api_key_id AS k FROM crdt_documents').get() as { k: string }).k;
    const key: DocKey = { apiKeyId, organizationId: 'o', documentId: 'd', editorId: 'e' };
    const scope = (await app.storage.keys.scopeFor(apiKeyId))!;
    // y-protocols catches and reports (console.error) each update Yjs refuses
    const reported = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const origin = {};
    let refused = 0;
    // clients each sending their 60 updates, two corrupted messages after each; the document is stored and
    // compacted after each client
    for (let round = 0; round < ROUNDS; round++) {
      const entry = (await app.crdt.load(scope, key))!;
      const valid = clientUpdates(1000 + SEED * 100 + round);
      const bad = corruptedMessages(valid, 2 * valid.length, SEED * 1000 + round);
      for (let i = 0; i < valid.length; i++) {
        for (const message of [yjsMessage(0, 2, valid[i]!), bad[2 * i]!, bad[2 * i + 1]!]) {
          const decoder = decoding.createDecoder(message);
          try {
            if (decoding.readVarUint(decoder) === 0) syncProtocol.readSyncMessage(decoder, encoding.createEncoder(), entry.doc, origin);
          } catch {
            refused++;
          }
        }
      }
      await app.crdt.flushAll(); // stores the updates and compacts them into a snapshot
      // what is stored loads, and is what the document is in memory (reloaded from storage if it went wrong)
      expect({ round, loaded: contentOf((await app.crdt.load(scope, key))!.doc) }).toEqual({ round, loaded: await storedContent(key) });
    }
    const refusedByYjs = reported.mock.calls.length;
    reported.mockRestore();
    console.log(`corrupted updates: ${ROUNDS} clients, ${3 * 60 * ROUNDS} messages; ${refusedByYjs} updates refused by Yjs, ${refused} messages not decodable`);
  });

  it('leave out a stored update that cannot be applied, so that the document still loads', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'o', documentId: 'd', editorId: 'log', type: 'text', data: 'one' });
    await t.callK('/v2/crdt/update', { organizationId: 'o', documentId: 'd', editorId: 'log', type: 'text', data: 'one two' });
    const app = t.server.app;
    const row = sqliteEngineOf(app.storage)
      .main.sqlite.prepare("SELECT api_key_id, organization_id, document_id, editor_id FROM crdt_documents WHERE editor_id = 'log'")
      .get() as Record<string, string>;
    const key: DocKey = { apiKeyId: row.api_key_id!, organizationId: 'o', documentId: 'd', editorId: 'log' };
    const scope = (await app.storage.keys.scopeFor(key.apiKeyId))!;
    // stored and unloaded, as an idle document is
    (await app.crdt.load(scope, key))!.lastActivity = 0;
    await app.crdt.unloadIfIdle();
    // a good update, then one Yjs throws on when applied (31 values announced, one there), in the log
    const append = sqliteEngineOf(app.storage).main.sqlite.prepare(
      'INSERT INTO crdt_updates (api_key_id, organization_id, document_id, editor_id, "update", created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const writer = new Y.Doc();
    writer.clientID = 7;
    writer.getText('content').insert(0, '!');
    for (const update of [Y.encodeStateAsUpdate(writer), Buffer.from('0101e0087648e0086e1f7d12', 'hex')])
      append.run(row.api_key_id, row.organization_id, row.document_id, row.editor_id, update, Date.now());
    const got = await t.callK('/v2/crdt/get', { organizationId: 'o', documentId: 'd', editorId: 'log' });
    expect(got.status).toBe(200);
    expect(dataOf<CrdtItem[]>(got)[0]!.data).toMatch(/^(!one two|one two!)$/);
  });
});

/** The document as a fresh store loads it from the database. */
async function storedContent(key: DocKey): Promise<string> {
  const store = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log }, { idleMs: 60_000 });
  try {
    const scope = (await t.server.app.storage.keys.scopeFor(key.apiKeyId))!;
    return contentOf((await store.load(scope, key))!.doc);
  } finally {
    store.close();
  }
}
