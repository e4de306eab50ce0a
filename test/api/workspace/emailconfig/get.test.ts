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

const path = '/v2/workspace/emailconfig/get';

describe('/v2/workspace/emailconfig/get', () => {
  it('answers the defaults of a new key: no mail, the default service, no provider key', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
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
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const token = dataOf<AuthTokens>(await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, other.headersW)).authTokens[0]!.token;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(dataOf<unknown>(res)).toEqual({
      useEmailService: true,
      emailServiceConfig: { type: 'thirdparty', fromEmail: 'team@example.com', fromCompany: 'Team', apiKeyConfigured: true },
    });
    expect(JSON.stringify(res.body)).not.toContain('SG.very-secret');
    // the default key is untouched
    expect(dataOf<{ useEmailService: boolean }>(await t.callK(path, {})).useEmailService).toBe(false);
  });

  it('refuses calls without the API key headers', async () => {
    const res = await t.callPublic(path, {});
    expect(res.status).toBe(400);
    expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
  });
});
