// Issue 32: disabling an API key from the admin UI. A disabled key is refused by every operation (after its
// credentials were cached too) and by the y-websocket upgrade, with PERMISSION_DENIED and a message that says
// why; its open connections are closed; enabling it restores it. Only the workspace's own session may do it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyItem, keysAnswer } from '../../shared/admin.ts';
import { API_KEY_DISABLED } from '../../server/services/apikeys.ts';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, dataOf, errorOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs, upgradeAnswer } from '../helpers/yjs.ts';
import type { ApiKeyAnswer, AuthTokensAnswer, UserTokenAnswer, WorkspaceAnswer } from '../helpers/answers.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
let cookie: string;
/** A second key of the workspace: the one disabled here (the default key shows that others are not touched). */
let key: { apiKey: string; authToken: string };
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
  const ownerEmail = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
  const apiKey = dataOf<ApiKeyAnswer>(
    await t.callW('/v2/workspace/apikey/create', { ownerEmail, type: 'testing', apiKeyName: 'To disable', createAuthToken: true }),
  ).apiKey;
  const authToken = dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token;
  key = { apiKey, authToken };
  const as = apiKeyHeaders(key);
  expect(
    (
      await t.callK(
        '/v2/organizations/documents/add',
        { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc', accessType: 'public' }] },
        as,
      )
    ).status,
  ).toBe(200);
  expect((await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'hello' }, as)).status).toBe(200);
});
const clients: Array<ReturnType<typeof connectYjs>> = [];
afterAll(async () => {
  for (const c of clients) c.close();
  await t.close();
});

const setState = (apiKey: string, disabled: unknown, headers: Record<string, string> = { cookie, 'x-hearth-ui': '1' }) =>
  fetch(`${t.url}/admin/api/keys/state`, { method: 'POST', headers, body: JSON.stringify({ apiKey, disabled }) });
const listed = async () => keysAnswer.parse(await (await fetch(`${t.url}/admin/api/keys`, { headers: { cookie } })).json()).items;
const asKey = () => apiKeyHeaders(key);
const room = { organizationId: 'acme', documentId: 'doc', editorId: 'e' };
const yjsPath = (params: Record<string, string>) => `/yjs/acme/doc/e?${new URLSearchParams(params)}`;

/** A y-websocket client that records the codes the server closed it with. */
async function open(params: Record<string, string>) {
  const client = Object.assign(connectYjs(t.url, room, params), { closes: [] as Array<{ code: number; reason: string }> });
  client.provider.on('connection-close', (event: { code: number; reason: string } | null) => {
    if (event) client.closes.push({ code: event.code, reason: event.reason });
  });
  clients.push(client);
  await client.synced;
  return client;
}

describe('disabling an API key', () => {
  it('refuses every operation and upgrade with PERMISSION_DENIED, closes its open connections, and enabling restores it', async () => {
    // before: served, and its credentials are cached by the first call
    expect((await t.callK('/v2/organizations/get', {}, asKey())).status).toBe(200);
    const userToken = dataOf<UserTokenAnswer>(
      await t.callK('/v2/auth/generate_token', { userId: 'ann', userProperties: { organizationId: 'acme' } }, asKey()),
    ).token;
    const backend = await open({ apiKey: key.apiKey, authToken: key.authToken });
    const user = await open({ apiKey: key.apiKey, token: userToken });
    const other = await open({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });

    const disabled = await setState(key.apiKey, true);
    expect(disabled.status).toBe(200);
    const item = keyItem.parse(await disabled.json());
    expect(item).toMatchObject({ apiKey: key.apiKey, disabled: true });
    expect(item.disabledAt).toEqual(expect.any(Number));
    expect((await listed()).find((k) => k.apiKey === key.apiKey)).toMatchObject({ disabled: true });

    // every operation: refused, however it authenticates with the key, with the reason
    const refused = { status: 403, body: { error: { status: 'PERMISSION_DENIED', message: API_KEY_DISABLED } } };
    expect(await t.callK('/v2/organizations/get', {}, asKey())).toMatchObject(refused);
    expect(await t.callK('/v2/crdt/get', room, asKey())).toMatchObject(refused);
    expect(await t.callK('/v2/auth/generate_token', { userId: 'bob' }, asKey())).toMatchObject(refused);
    expect(await t.callPublic('/v1/auth/token/get', { apiKey: key.apiKey, authToken: key.authToken, userId: 'bob' })).toMatchObject(refused);
    // a wrong token learns nothing new
    expect(errorOf(await t.callK('/v2/organizations/get', {}, { ...asKey(), 'x-svc-auth-token': 'wrong' })).message).toBe(
      'Invalid auth token for this API key.',
    );
    // the admin UI's operation calls with the key are refused alike
    const viaUi = await (
      await fetch(`${t.url}/admin/api/call`, {
        method: 'POST',
        headers: { cookie, 'x-hearth-ui': '1' },
        body: JSON.stringify({ path: '/v2/organizations/get', apiKey: key.apiKey, data: {} }),
      })
    ).json();
    expect(viaUi).toMatchObject({ status: 403, body: refused.body });

    // its open connections are closed (the key's own and a user token's); another key's stays open
    await eventually(() => expect(backend.closes).toEqual([{ code: 4403, reason: 'API key disabled' }]));
    await eventually(() => expect(user.closes).toEqual([{ code: 4403, reason: 'API key disabled' }]));
    expect(other.closes).toEqual([]);
    expect(other.provider.wsconnected).toBe(true);
    // and new upgrades are refused, with the reason
    expect(await upgradeAnswer(t.url, yjsPath({ apiKey: key.apiKey, authToken: key.authToken }))).toEqual({ status: 403, body: API_KEY_DISABLED });
    expect(await upgradeAnswer(t.url, yjsPath({ apiKey: key.apiKey, token: userToken }))).toEqual({ status: 403, body: API_KEY_DISABLED });
    // the admin may still inspect what it holds: the data browser, and a read-only ticket to a document
    expect((await fetch(`${t.url}/admin/api/organizations?apiKey=${key.apiKey}`, { headers: { cookie } })).status).toBe(200);
    const { ticket } = (await (
      await fetch(`${t.url}/admin/api/crdt/ticket`, {
        method: 'POST',
        headers: { cookie, 'x-hearth-ui': '1' },
        body: JSON.stringify({ apiKey: key.apiKey, ...room }),
      })
    ).json()) as { ticket: string };
    expect((await upgradeAnswer(t.url, yjsPath({ apiKey: key.apiKey, ticket }))).status).toBe(101);
    // the default key is untouched
    expect((await t.callK('/v2/organizations/get', {})).status).toBe(200);

    // enabled again: served again, the same credentials, the same data
    const enabled = await setState(key.apiKey, false);
    expect(keyItem.parse(await enabled.json())).toMatchObject({ disabled: false, disabledAt: null });
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room, asKey()))[0]!.data).toBe('hello');
    expect((await upgradeAnswer(t.url, yjsPath({ apiKey: key.apiKey, token: userToken }))).status).toBe(101);
    const again = await open({ apiKey: key.apiKey, authToken: key.authToken });
    expect(again.doc.getText('content').toString()).toBe('hello');
  });

  it("is the workspace session's act alone, with the UI header, and bad input is an error envelope", async () => {
    expect((await setState(key.apiKey, true, { cookie })).status).toBe(403);
    expect((await setState(key.apiKey, true, { 'x-hearth-ui': '1' })).status).toBe(401);
    const stranger = await createWorkspace(t);
    const theirs = await adminCookie(t, stranger.workspaceId);
    const foreign = await setState(key.apiKey, true, { cookie: theirs, 'x-hearth-ui': '1' });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    for (const bad of ['yes', null, 1]) {
      const res = await setState(key.apiKey, bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { status: string; message: string } }).error).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^disabled: /),
      });
    }
    const notJson = await fetch(`${t.url}/admin/api/keys/state`, { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body: '{' });
    expect(notJson.status).toBe(400);
    // nothing of that changed the key
    expect((await listed()).find((k) => k.apiKey === key.apiKey)).toMatchObject({ disabled: false });
    expect((await t.callK('/v2/organizations/get', {}, asKey())).status).toBe(200);
  });
});
