// A sample app's test suite, run as an app team runs it: `npx hearth exec --fixtures fixtures.json -- npm test`
// (test/cli/package.test.ts installs Hearth from `npm pack` here first). It uses nothing of Hearth's but what
// README.md promises: the variables hearth exec sets, the fixtures' fixed key and token, the REST API, a user token
// over y-websocket, and the testing API's reset and clock.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

const url = process.env.HEARTH_URL;
const wsUrl = process.env.HEARTH_WS_URL;
// the fixtures' key: fixed id and auth token (fixtures.json)
const key = { apiKey: 'key_fixture_acme', authToken: 'yauth_fixture_acme_0001' };

async function call(path, data) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-api-key': key.apiKey, 'x-svc-auth-token': key.authToken },
    body: JSON.stringify({ data }),
  });
  return { status: res.status, body: await res.json() };
}
const testing = async (path, data) =>
  (await fetch(`${url}/testing/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data }) })).json();
const documentIds = async () => (await call('/v2/organizations/documents/get', { organizationId: 'acme' })).body.result.data.map((d) => d.id);

/** Opens the room with a user token; resolves to the synced document and its provider, or to the close code. */
function open(room, token) {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(wsUrl, room, doc, { WebSocketPolyfill: WebSocket, params: { apiKey: key.apiKey, token } });
  return new Promise((resolve) => {
    let settled = false;
    provider.once('sync', () => {
      settled = true;
      resolve({ doc, provider });
    });
    provider.on('connection-close', (event) => {
      if (settled) return; // a close after the sync (or the one destroy() makes below) is not an answer
      settled = true;
      resolve({ closed: event?.code ?? 0 });
      provider.destroy();
      provider.awareness.destroy(); // its timer would keep the process alive
    });
  });
}
const userToken = async (userId, documentId) =>
  (
    await call('/v2/auth/generate_token', {
      userId,
      permissions: { resources: [{ type: 'document', id: documentId, organizationId: 'acme', accessRole: 'editor' }] },
    })
  ).body.result.data.token;

beforeEach(() => testing('reset', {}));

test('the fixtures are loaded, and a test may write', async () => {
  const readme = await call('/v2/crdt/get', { organizationId: 'acme', documentId: 'readme' });
  assert.equal(readme.status, 200);
  assert.match(JSON.stringify(readme.body.result.data), /Hello from the fixtures\./);
  assert.equal((await call('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'scratch' }] })).status, 200);
  assert.ok((await documentIds()).includes('scratch'));
});

test('a reset between tests removes what the last one wrote and loads the fixtures again', async () => {
  const ids = await documentIds();
  assert.ok(!ids.includes('scratch'));
  assert.ok(ids.includes('readme'));
});

test('a user token edits over y-websocket what REST reads', async () => {
  await call('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'live' }] });
  await call('/v2/crdt/add', { organizationId: 'acme', documentId: 'live', editorId: 'e', type: 'text', data: 'Hello' });
  const { doc, provider } = await open('acme/live/e', await userToken('ann', 'live'));
  try {
    assert.equal(doc.getText('content').toString(), 'Hello');
    doc.getText('content').insert(5, ' from the app');
    let read;
    for (let i = 0; i < 50; i++) {
      read = (await call('/v2/crdt/get', { organizationId: 'acme', documentId: 'live', editorId: 'e' })).body.result.data[0].data;
      if (read === 'Hello from the app') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(read, 'Hello from the app');
  } finally {
    provider.destroy();
    provider.awareness.destroy();
  }
});

test("the clock: a user token is refused once Hearth's time passes its 48 hours", async () => {
  await call('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'later' }] });
  await call('/v2/crdt/add', { organizationId: 'acme', documentId: 'later', editorId: 'e', type: 'text', data: 'x' });
  const token = await userToken('ann', 'later');
  const now = await open('acme/later/e', token);
  assert.ok(now.doc, 'the fresh token opens the room');
  now.provider.destroy();
  now.provider.awareness.destroy();
  const moved = await testing('clock', { advanceMs: 49 * 3600 * 1000 });
  assert.ok(moved.result.data.offsetMs >= 49 * 3600 * 1000);
  const later = await open('acme/later/e', token);
  assert.ok(later.closed !== undefined, 'the expired token is refused');
});
