// Bad input over the websocket: y-websocket clients with full access edit a text, a map and an array, and send
// corrupted messages between their real updates: random bytes, copies of their own updates with a few bytes
// changed (as sync step 2 and as updates), state vectors of garbage (sync step 1), awareness updates of garbage.
// The server must stay up and answer every call; after every connection, once stored and compacted, each
// document must answer and load from storage, and answer the same after being unloaded and loaded again twice.
// (Corrupted updates are outside Yjs's trust model: what the store guarantees under them, and the snapshot that
// lost content or threw on load that this sweep found, are in docs/decisions.md, Corrupted updates, and
// test/crdt/corrupted-updates.test.ts.) Reproduce a run with WS_FUZZ_SEED=<seed printed>
// (WS_FUZZ_MESSAGES sets the count).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { readContent, type CrdtType } from '../../server/crdt/content.ts';
import { createCrdtStore } from '../../server/crdt/store.ts';
import type { RoomId } from '../../server/db/repos/crdt.ts';

import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { corruptedMessages, yjsMessage } from '../helpers/yjs.ts';

const TOTAL = Number(process.env.WS_FUZZ_MESSAGES ?? 20_000);
const SEED = Number(process.env.WS_FUZZ_SEED ?? Date.now() % 2 ** 31);
const ORG = 'ws-fuzz';
const EDITORS = [
  { editorId: 'text', type: 'text', data: 'hello' },
  { editorId: 'map', type: 'map', data: { a: 1 } },
  { editorId: 'array', type: 'array', data: [1, 2] },
] as const;

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: [{ documentId: 'doc' }] });
  for (const e of EDITORS) expect((await t.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', ...e })).status).toBe(200);
});
afterAll(() => t?.close());

/** A client's edits of one editor's content, as the updates it sends. */
function clientUpdates(type: string, clientId: number, count: number): Uint8Array[] {
  const doc = new Y.Doc();
  doc.clientID = clientId;
  const updates: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => updates.push(update));
  for (let i = 0; i < count; i++) {
    if (type === 'text') {
      const text = doc.getText('content');
      if (i % 3 === 2 && text.length > 2) text.delete(1, 1);
      else text.insert(Math.min(i, text.length), `ab${i}`);
    } else if (type === 'map') doc.getMap('content').set(`k${i % 7}`, { x: i, s: `v${i}`, list: [i, 'z'] });
    else doc.getArray('content').insert(0, [i, 'z', { q: [1, 2] }]);
  }
  return updates;
}

const get = (editorId: string) => t.callK('/v2/crdt/get', { organizationId: ORG, documentId: 'doc', editorId });

describe('bad input over the websocket', () => {
  it('stays up, and every document loads and answers, through corrupted messages and reloads', async () => {
    const { apiKey, authToken } = t.credentials;
    const started = Date.now();
    let sent = 0;
    let connections = 0;
    let closedAsBad = 0;
    try {
      while (sent < TOTAL) {
        const editor = EDITORS[connections % EDITORS.length]!;
        const valid = clientUpdates(editor.type, 1_000 + connections, 20);
        const bad = corruptedMessages(valid, 2 * valid.length, SEED + connections);
        const ws = new WebSocket(
          `${t.url.replace(/^http/, 'ws')}/yjs/${ORG}/doc/${editor.editorId}?apiKey=${encodeURIComponent(apiKey)}&authToken=${encodeURIComponent(authToken)}`,
        );
        await new Promise((resolve, reject) => {
          ws.once('open', resolve);
          ws.once('error', reject);
        });
        const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
        for (let i = 0; i < valid.length && ws.readyState === WebSocket.OPEN; i++) {
          for (const message of [yjsMessage(0, 2, valid[i]!), bad[2 * i]!, bad[2 * i + 1]!]) {
            if (ws.readyState !== WebSocket.OPEN) break;
            ws.send(message);
            sent++;
          }
        }
        // the server has handled every message once it answers the close (or has closed itself)
        if (ws.readyState === WebSocket.OPEN) ws.close();
        if ((await closed) === 1003) closedAsBad++;
        connections++;
        // stored and compacted (the snapshot checked); the document answers, and loads from storage
        await t.server.app.crdt.flushAll();
        const got = await get(editor.editorId);
        expect({ connection: connections, status: got.status }).toEqual({ connection: connections, status: 200 });
        await storedContent(editor.editorId, editor.type); // throws if it does not load
      }
      // every document unloaded as an idle one is (stored, its snapshot checked), then loaded from storage; twice
      const contents: unknown[][] = [];
      for (let cycle = 0; cycle < 2; cycle++) {
        const scope = await scopeOfEditors();
        for (const e of EDITORS) (await t.server.app.crdt.load(scope, room(e.editorId)))!.lastActivity = 0;
        await t.server.app.crdt.unloadIfIdle();
        const read: unknown[] = [];
        for (const e of EDITORS) {
          const got = await get(e.editorId);
          expect(got.status).toBe(200);
          read.push(dataOf<CrdtItem[]>(got)[0]!.data);
        }
        contents.push(read);
      }
      expect(contents[1]).toEqual(contents[0]);
      expect((await t.callPublic('/v2/ping', {})).status).toBe(200);
    } finally {
      console.log(
        `ws fuzz: ${sent} messages over ${connections} connections to 3 editors in ${((Date.now() - started) / 1000).toFixed(0)} s (seed ${SEED}); ` +
          `closed by the server as bad (1003): ${closedAsBad}; every document answered and loaded from storage after each connection and after 2 unloads`,
      );
    }
  });
});

/** An editor's content as a new store loads it from the database. */
async function storedContent(editorId: string, type: CrdtType): Promise<unknown> {
  const store = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log });
  try {
    return readContent((await store.load(await scopeOfEditors(), room(editorId)))!.doc, type, 'content');
  } finally {
    store.close();
  }
}

const room = (editorId: string): RoomId => ({ organizationId: ORG, documentId: 'doc', editorId });
/** The scope of the key the fuzzed editors belong to. */
const scopeOfEditors = async () => (await t.server.app.storage.keys.scopeFor(t.credentials.apiKey))!;
