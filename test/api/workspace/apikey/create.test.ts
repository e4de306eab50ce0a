import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateWorkspaceSettings } from '../../../../server/services/workspaces.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** apikey/create's answer. */
interface CreatedKey {
  apiKey: string;
}
/** A token as authtokens/get lists it (the field read here). */
interface AuthToken {
  token: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const create = (data: unknown, headers?: Record<string, string>) => t.callW('/v2/workspace/apikey/create', data, headers);
const config = (apiKey: string, authToken: string) => call(t.url, '/v2/workspace/apikeyconfig/get', {}, apiKeyHeaders({ apiKey, authToken }));
const tokenOf = async (apiKey: string) => dataOf<{ authTokens: AuthToken[] }>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens;

describe('/v2/workspace/apikey/create', () => {
  it('creates a testing key with every field stored', async () => {
    const res = await create({
      ownerEmail: 'Dev@Example.com',
      type: 'testing',
      createAuthToken: true,
      apiKeyName: 'Staging',
      allowedDomains: ['app.example.com', '*.preview.example.com'],
      addLocalHostToAllowedDomains: true,
      useEmailService: true,
      useWebhookService: true,
      useNotificationService: true,
      setDefaultNotificationTriggers: true,
      setDefaultEmailTriggers: true,
      requireAutoOrgUser: true,
      enablePrivateComments: true,
      emailServiceConfig: {
        type: 'thirdparty',
        apiKey: 'SG.secret-mail-key',
        fromEmail: 'noreply@example.com',
        fromCompany: 'Example',
        commentTemplateId: 'c1',
        tagTemplateId: 't1',
      },
      webhookServiceConfig: {
        authToken: 'basic-secret',
        rawNotificationUrl: 'https://hooks.example.com/raw',
        processedNotificationUrl: 'http://localhost:9000/processed',
      },
      realtimeDBRegion: 'europe-west1',
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'API key created successfully.',
      data: { apiKey: expect.stringMatching(/^[A-Za-z0-9]{20}$/) },
    });
    const apiKey = dataOf<CreatedKey>(res).apiKey;
    const tokens = await tokenOf(apiKey);
    expect(tokens).toEqual([{ token: expect.any(String), name: 'Default Auth Token', domains: [] }]);

    const stored = dataOf<unknown>(await config(apiKey, tokens[0]!.token));
    expect(stored).toMatchObject({
      apiKey,
      apiKeyName: 'Staging',
      type: 'testing',
      ownerEmail: 'dev@example.com',
      persistenceDBRegion: null,
      realtimeDBRegion: 'europe-west1',
      allowedDomains: ['app.example.com', '*.preview.example.com', 'localhost'],
      useEmailService: true,
      useWebhookService: true,
      useNotificationService: true,
      requireAutoOrgUser: true,
      enablePrivateComments: true,
      emailServiceConfig: {
        type: 'thirdparty',
        fromEmail: 'noreply@example.com',
        fromCompany: 'Example',
        commentTemplateId: 'c1',
        tagTemplateId: 't1',
        apiKeyConfigured: true,
      },
      webhookServiceConfig: {
        rawNotificationUrl: 'https://hooks.example.com/raw',
        processedNotificationUrl: 'http://localhost:9000/processed',
        authTokenConfigured: true,
      },
      notificationTriggers: { comment: true, mention: true },
      emailTriggers: { mention: true },
    });
    // secrets are never returned
    expect(JSON.stringify(stored)).not.toContain('SG.secret-mail-key');
    expect(JSON.stringify(stored)).not.toContain('basic-secret');
  });

  it('defaults: a token is created, services off, no triggers; sendgrid is read as thirdparty', async () => {
    const res = await create({ ownerEmail: 'a@example.com', type: 'testing', emailServiceConfig: { type: 'sendgrid' } });
    const apiKey = dataOf<CreatedKey>(res).apiKey;
    const [token] = await tokenOf(apiKey);
    const stored = dataOf<unknown>(await config(apiKey, token!.token));
    expect(stored).toMatchObject({
      apiKeyName: 'Test API Key',
      useEmailService: false,
      enablePrivateComments: false,
      notificationTriggers: null,
      emailTriggers: null,
      allowedDomains: [],
      emailServiceConfig: { type: 'thirdparty', apiKeyConfigured: false },
    });
  });

  it('creates no token when createAuthToken is false', async () => {
    const res = await create({ ownerEmail: 'a@example.com', type: 'testing', createAuthToken: false });
    expect(await tokenOf(dataOf<CreatedKey>(res).apiKey)).toEqual([]);
  });

  it('rule 1: missing or invalid ownerEmail or type, unsupported regions: INVALID_ARGUMENT', async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'testing' }, 'ownerEmail is required.'],
      [{ ownerEmail: 'nope', type: 'testing' }, 'ownerEmail must be a valid email address.'],
      [{ ownerEmail: 'a@example.com' }, 'type is required.'],
      [{ ownerEmail: 'a@example.com', type: 'staging' }, 'type must be one of: testing, production.'],
      [{ ownerEmail: 'a@example.com', type: 'production', persistenceDBRegion: 'mars-north1' }, 'Unsupported region for persistenceDBRegion: "mars-north1".'],
      [{ ownerEmail: 'a@example.com', type: 'testing', persistenceDBRegion: 'eur3' }, 'persistenceDBRegion is only supported for production API keys.'],
      [{ ownerEmail: 'a@example.com', type: 'production', realtimeDBRegion: '' }, 'Unsupported region for realtimeDBRegion: "".'],
      [{ ownerEmail: 'a@example.com', type: 'testing', realtimeDBRegion: 'nowhere' }, 'Unsupported region for realtimeDBRegion: "nowhere".'],
      [{ ownerEmail: 'a@example.com', type: 'testing', allowedDomains: 'example.com' }, 'allowedDomains must be an array, not a string.'],
      [
        { ownerEmail: 'a@example.com', type: 'testing', allowedDomains: ['not a domain'] },
        'allowedDomains[0] must be a domain name such as app.example.com or localhost:3000.',
      ],
      [{ ownerEmail: 'a@example.com', type: 'testing', useEmailService: 'yes' }, 'useEmailService must be a boolean, not a string.'],
      [
        { ownerEmail: 'a@example.com', type: 'testing', emailServiceConfig: { type: 'mailgun' } },
        'emailServiceConfig.type must be one of: default, thirdparty, sendgrid.',
      ],
      [{ ownerEmail: 'a@example.com', type: 'testing', webhookServiceConfig: { rawNotificationUrl: 'ftp://x' } }, 'Invalid webhook service configuration.'],
    ];
    for (const [data, message] of cases) {
      const res = await create(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it('accepts a production key with a supported region in the default (paid) workspace', async () => {
    const res = await create({ ownerEmail: 'a@example.com', type: 'production', persistenceDBRegion: 'eur3', realtimeDBRegion: 'europe-west1' });
    expect(res.status).toBe(200);
    const apiKey = dataOf<CreatedKey>(res).apiKey;
    const keys = dataOf<unknown[]>(await t.callW('/v2/workspace/apikeys/get', { apiKeys: [apiKey] }));
    expect(keys[0]).toMatchObject({ type: 'production', persistenceDBRegion: 'eur3', realtimeDBRegion: 'europe-west1' });
  });

  it('rules 2-4: self-serve, paid plan and the maximum number of production keys', async () => {
    const ws = await createWorkspace(t);
    const production = { ownerEmail: ws.ownerEmail, type: 'production' };

    // a new workspace is free and not self-serve
    let res = await create(production, ws.headersW);
    expect(res.status).toBe(403);
    expect(errorOf(res).status).toBe('PERMISSION_DENIED');

    await updateWorkspaceSettings(t.server.app, t.server.app.storage.workspaces.scopeOf({ id: ws.workspaceId }), { selfServeProduction: true });
    res = await create(production, ws.headersW);
    expect(res.status).toBe(400);
    expect(errorOf(res).status).toBe('FAILED_PRECONDITION');

    await updateWorkspaceSettings(t.server.app, t.server.app.storage.workspaces.scopeOf({ id: ws.workspaceId }), { plan: 'paid', maxProductionKeys: 2 });
    expect((await create(production, ws.headersW)).status).toBe(200);
    expect((await create(production, ws.headersW)).status).toBe(200);
    res = await create(production, ws.headersW);
    expect(res.status).toBe(429);
    expect(errorOf(res)).toEqual({ status: 'RESOURCE_EXHAUSTED', message: 'This workspace has reached its maximum of 2 production API keys.' });
    // testing keys are not limited
    expect((await create({ ownerEmail: ws.ownerEmail, type: 'testing' }, ws.headersW)).status).toBe(200);
  });

  it('refuses invalid workspace credentials before looking at the input', async () => {
    const res = await create({}, { 'x-svc-workspace-auth-token': 'wrong' });
    expect(res.status).toBe(403);
    expect(errorOf(res)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' });
  });

  it('puts the key in the calling workspace only', async () => {
    const other = await createWorkspace(t);
    const res = await create({ ownerEmail: other.ownerEmail, type: 'testing' }, other.headersW);
    const apiKey = dataOf<CreatedKey>(res).apiKey;
    const mine = await t.callW('/v2/workspace/authtokens/get', { apiKey });
    expect(mine.status).toBe(404);
  });
});
