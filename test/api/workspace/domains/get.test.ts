import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

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
    expect(res.body.result).toEqual({ status: 'success', message: 'Allowed domains retrieved successfully.', data: { domains: [] } });
  });

  it("lists what apikey/create set (localhost included when asked), only the calling key's", async () => {
    const ws = await createWorkspace(t);
    const created = await t.callPublic(
      '/v2/workspace/apikey/create',
      { ownerEmail: ws.ownerEmail, type: 'testing', allowedDomains: ['App.Example.com', '*.example.org'], addLocalHostToAllowedDomains: true },
      ws.headersW,
    );
    expect(created.status).toBe(200);
    const apiKey = created.body.result.data.apiKey as string;
    const token = (await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, ws.headersW)).body.result.data.authTokens[0].token as string;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(res.body.result.data).toEqual({ domains: ['app.example.com', '*.example.org', 'localhost'] });
    // the workspace's first key is untouched
    expect((await t.callPublic(path, {}, ws.headersK)).body.result.data).toEqual({ domains: [] });
  });

  it('refuses calls without the API key headers, or with a wrong token', async () => {
    const res = await t.callPublic(path, {});
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    const wrong = await t.callPublic(path, {}, { 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': 'nope' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.status).toBe('PERMISSION_DENIED');
  });
});
