import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** apikey/create's answer. */
interface CreatedKey {
  apiKey: string;
}
/** An auth token as authtokens/get lists it and authtoken/reset answers it (the field read here). */
interface AuthToken {
  token: string;
}
interface AuthTokens {
  authTokens: AuthToken[];
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const configWith = (apiKey: string, authToken: string) => call(t.url, '/v2/workspace/apikeyconfig/get', {}, apiKeyHeaders({ apiKey, authToken }));

describe('/v2/workspace/authtoken/reset', () => {
  it('replaces the default token: the old one stops working, the new one works', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'testing' });
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const before = dataOf<AuthTokens>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token;
    expect((await configWith(apiKey, before)).status).toBe(200);

    const res = await t.callW('/v2/workspace/authtoken/reset', { apiKey });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Auth token reset successfully.');
    const fresh = dataOf<{ authToken: AuthToken }>(res).authToken;
    expect(fresh).toEqual({ token: expect.any(String), name: 'Default Auth Token', domains: [] });
    expect(fresh.token).not.toBe(before);

    const old = await configWith(apiKey, before);
    expect(old.status).toBe(403);
    expect(errorOf(old).status).toBe('PERMISSION_DENIED');
    expect((await configWith(apiKey, fresh.token)).status).toBe(200);
    expect(dataOf<AuthTokens>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens).toEqual([fresh]);
  });

  it('gives a key made without a token its first token', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'testing', createAuthToken: false });
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const res = await t.callW('/v2/workspace/authtoken/reset', { apiKey });
    expect((await configWith(apiKey, dataOf<{ authToken: AuthToken }>(res).authToken.token)).status).toBe(200);
  });

  it('resets a named token and answers NOT_FOUND for a token the key does not have', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'testing' });
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const current = dataOf<AuthTokens>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token;
    expect((await t.callW('/v2/workspace/authtoken/reset', { apiKey, authToken: current })).status).toBe(200);
    const missing = await t.callW('/v2/workspace/authtoken/reset', { apiKey, authToken: current });
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ status: 'NOT_FOUND', message: 'Auth token not found.' });
  });

  it("cannot reset another workspace's key", async () => {
    const other = await createWorkspace(t);
    const res = await t.callW('/v2/workspace/authtoken/reset', { apiKey: other.apiKey });
    expect(res.status).toBe(404);
    expect((await call(t.url, '/v2/workspace/apikeyconfig/get', {}, other.headersK)).status).toBe(200);
  });
});
