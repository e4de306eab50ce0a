import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/notificationconfig/get';

describe('/v2/workspace/notificationconfig/get', () => {
  it('answers the defaults of a new key: the service off, no triggers', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Notification configuration retrieved successfully.',
      data: { useNotificationService: false, notificationServiceConfig: { triggers: {} } },
    });
  });

  it('shows what apikey/create set (useNotificationService, setDefaultNotificationTriggers), only for that key', async () => {
    const other = await createWorkspace(t);
    const created = await t.callPublic(
      '/v2/workspace/apikey/create',
      { ownerEmail: 'owner@example.com', type: 'testing', useNotificationService: true, setDefaultNotificationTriggers: true },
      other.headersW,
    );
    expect(created.status).toBe(200);
    const apiKey = created.body.result.data.apiKey as string;
    const token = (await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, other.headersW)).body.result.data.authTokens[0].token as string;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(res.body.result.data).toEqual({
      useNotificationService: true,
      notificationServiceConfig: { triggers: { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true } },
    });
    // the same settings apikeyconfig/get describes
    const config = (await t.callPublic('/v2/workspace/apikeyconfig/get', {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token })).body.result.data;
    expect({ useNotificationService: config.useNotificationService, triggers: config.notificationTriggers }).toEqual({
      useNotificationService: true,
      triggers: res.body.result.data.notificationServiceConfig.triggers,
    });
    // the workspace's other keys are untouched
    expect((await t.callPublic(path, {}, other.headersK)).body.result.data).toEqual({
      useNotificationService: false,
      notificationServiceConfig: { triggers: {} },
    });
    expect((await t.callK(path, {})).body.result.data.useNotificationService).toBe(false);
  });

  it('reads a key stored before the workspace configuration operations existed', async () => {
    // the settings JSON as apikey/create wrote it then, with setDefaultNotificationTriggers
    const legacy = {
      useEmailService: false,
      useWebhookService: false,
      useNotificationService: true,
      requireAutoOrgUser: false,
      enablePrivateComments: false,
      requireJwtToken: false,
      defaultDocumentAccessType: 'public',
      emailServiceConfig: { type: 'default' },
      webhookServiceConfig: {},
      notificationTriggers: { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true },
      emailTriggers: null,
      aiProviders: {},
    };
    t.server.app.storage.engine.main.sqlite.prepare('UPDATE api_keys SET settings = ? WHERE id = ?').run(JSON.stringify(legacy), t.credentials.apiKey);
    await t.restart();
    const res = await t.callK(path, {});
    expect(res.body.result.data).toEqual({ useNotificationService: true, notificationServiceConfig: { triggers: legacy.notificationTriggers } });
  });

  it('refuses calls without the API key headers or with a wrong key', async () => {
    const missing = await t.callPublic(path, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, path, {}, { 'x-svc-api-key': 'nope', 'x-svc-auth-token': t.credentials.authToken });
    expect(wrong.body.error).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
  });
});
