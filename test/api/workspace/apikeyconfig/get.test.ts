import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/apikeyconfig/get';

/** apikeyconfig/get's answer describes the calling key, and apikey/create's names the new one: both by `apiKey`. */
interface KeyAnswer {
  apiKey: string;
}

describe('/v2/workspace/apikeyconfig/get', () => {
  it("returns the calling key's settings", async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('API key metadata retrieved successfully.');
    expect(dataOf<KeyAnswer>(res)).toMatchObject({
      apiKey: t.credentials.apiKey,
      type: 'testing',
      enablePrivateComments: false,
      requireJwtToken: false,
      requireAutoOrgUser: false,
      defaultDocumentAccessType: 'public',
      aiModelApiKey: [],
    });
  });
});

describe('header set B', () => {
  it('names a missing API key header', async () => {
    const res = await t.callPublic(path, {}, { 'x-svc-auth-token': t.credentials.authToken });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'API key not found in headers (x-svc-api-key).' });
  });

  it('names a missing auth token header', async () => {
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': t.credentials.apiKey });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Auth Token not found in headers (x-svc-auth-token).' });
  });

  it('refuses an unknown key and a wrong token', async () => {
    const unknown = await t.callK(path, {}, { 'x-svc-api-key': 'unknownkey' });
    expect(unknown.status).toBe(403);
    expect(errorOf(unknown)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
    const wrong = await t.callK(path, {}, { 'x-svc-auth-token': 'yauth_wrong' });
    expect(wrong.status).toBe(403);
    expect(errorOf(wrong)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid auth token for this API key.' });
  });

  it("refuses another key's token, even from the same workspace", async () => {
    const sibling = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'testing' });
    const siblingKey = dataOf<KeyAnswer>(sibling).apiKey;
    const res = await t.callK(path, {}, { 'x-svc-api-key': siblingKey });
    expect(res.status).toBe(403);
  });

  it("refuses another workspace's token, and workspace credentials in place of key credentials", async () => {
    const other = await createWorkspace(t);
    expect((await t.callK(path, {}, { 'x-svc-auth-token': other.authToken })).status).toBe(403);
    const ws = await t.callPublic(path, {}, { 'x-svc-api-key': t.credentials.workspaceId, 'x-svc-auth-token': t.credentials.workspaceAuthToken });
    expect(ws.status).toBe(403);
    // and its own credentials see its own key only
    const theirs = await t.callPublic(path, {}, other.headersK);
    expect(dataOf<KeyAnswer>(theirs).apiKey).toBe(other.apiKey);
  });

  it('a public operation ignores credentials it does not need', async () => {
    expect((await t.callPublic('/v2/ping', {}, { 'x-svc-api-key': 'junk' })).status).toBe(200);
  });
});
