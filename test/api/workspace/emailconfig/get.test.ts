import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/emailconfig/get';

describe('/v2/workspace/emailconfig/get', () => {
  it('answers the defaults of a new key: no mail, the default service, no provider key', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Email configuration retrieved successfully.',
      data: { useEmailService: false, emailServiceConfig: { type: 'default', apiKeyConfigured: false } },
    });
  });

  it("shows what apikey/create set, never the provider key itself, and only the calling key's", async () => {
    const other = await createWorkspace(t);
    const created = await t.callPublic(
      '/v2/workspace/apikey/create',
      {
        ownerEmail: 'owner@example.com',
        type: 'testing',
        useEmailService: true,
        emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.very-secret', fromEmail: 'team@example.com', fromCompany: 'Team' },
      },
      other.headersW,
    );
    expect(created.status).toBe(200);
    const apiKey = created.body.result.data.apiKey as string;
    const token = (await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, other.headersW)).body.result.data.authTokens[0].token as string;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(res.body.result.data).toEqual({
      useEmailService: true,
      emailServiceConfig: { type: 'thirdparty', fromEmail: 'team@example.com', fromCompany: 'Team', apiKeyConfigured: true },
    });
    expect(JSON.stringify(res.body)).not.toContain('SG.very-secret');
    // the default key is untouched
    expect((await t.callK(path, {})).body.result.data.useEmailService).toBe(false);
  });

  it('refuses calls without the API key headers', async () => {
    const res = await t.callPublic(path, {});
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  });
});
