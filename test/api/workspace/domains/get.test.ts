import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** apikey/create's answer. */
interface CreatedKey {
  apiKey: string;
}
/** authtokens/get's answer (the field read here). */
interface AuthTokens {
  authTokens: { token: string }[];
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/domains/get';

describe('/v2/workspace/domains/get', () => {
  it("answers a new key's empty list", async () => {
    const { headersK } = await createWorkspace(t);
    const res = await t.callPublic(path, {}, headersK);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Allowed domains retrieved successfully.', data: { domains: [] } });
  });

  it("lists what apikey/create set (localhost included when asked), only the calling key's", async () => {
    const ws = await createWorkspace(t);
    const created = await t.callPublic(
      '/v2/workspace/apikey/create',
      { ownerEmail: ws.ownerEmail, type: 'testing', allowedDomains: ['App.Example.com', '*.example.org'], addLocalHostToAllowedDomains: true },
      ws.headersW,
    );
    expect(created.status).toBe(200);
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const token = dataOf<AuthTokens>(await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, ws.headersW)).authTokens[0]!.token;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(dataOf<unknown>(res)).toEqual({ domains: ['app.example.com', '*.example.org', 'localhost'] });
    // the workspace's first key is untouched
    expect(dataOf<unknown>(await t.callPublic(path, {}, ws.headersK))).toEqual({ domains: [] });
  });

  it('refuses calls without the API key headers, or with a wrong token', async () => {
    const res = await t.callPublic(path, {});
    expect(res.status).toBe(400);
    expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
    const wrong = await t.callPublic(path, {}, { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': 'nope' });
    expect(wrong.status).toBe(403);
    expect(errorOf(wrong).status).toBe('PERMISSION_DENIED');
  });
});
