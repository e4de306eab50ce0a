import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

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

const path = '/v2/workspace/notificationconfig/get';

/** notificationconfig/get's answer. */
interface NotificationConfig {
  useNotificationService: boolean;
  notificationServiceConfig: { triggers: Record<string, boolean> };
}
/** apikeyconfig/get's answer (the fields read here): the same settings. */
interface KeyConfig {
  useNotificationService: boolean;
  notificationTriggers: Record<string, boolean> | null;
}

describe('/v2/workspace/notificationconfig/get', () => {
  it('answers the defaults of a new key: the service off, no triggers', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
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
    const apiKey = dataOf<CreatedKey>(created).apiKey;
    const token = dataOf<AuthTokens>(await t.callPublic('/v2/workspace/authtokens/get', { apiKey }, other.headersW)).authTokens[0]!.token;
    const res = await t.callPublic(path, {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token });
    expect(dataOf<NotificationConfig>(res)).toEqual({
      useNotificationService: true,
      notificationServiceConfig: { triggers: { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true } },
    });
    // the same settings apikeyconfig/get describes
    const config = dataOf<KeyConfig>(await t.callPublic('/v2/workspace/apikeyconfig/get', {}, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token }));
    expect({ useNotificationService: config.useNotificationService, triggers: config.notificationTriggers }).toEqual({
      useNotificationService: true,
      triggers: dataOf<NotificationConfig>(res).notificationServiceConfig.triggers,
    });
    // the workspace's other keys are untouched
    expect(dataOf<NotificationConfig>(await t.callPublic(path, {}, other.headersK))).toEqual({
      useNotificationService: false,
      notificationServiceConfig: { triggers: {} },
    });
    expect(dataOf<NotificationConfig>(await t.callK(path, {})).useNotificationService).toBe(false);
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
    await t.query('UPDATE api_keys SET settings = ? WHERE id = ?', [JSON.stringify(legacy), t.credentials.apiKey]);
    await t.restart();
    const res = await t.callK(path, {});
    expect(dataOf<NotificationConfig>(res)).toEqual({ useNotificationService: true, notificationServiceConfig: { triggers: legacy.notificationTriggers } });
  });

  it('refuses calls without the API key headers or with a wrong key', async () => {
    const missing = await t.callPublic(path, {});
    expect(missing.status).toBe(400);
    expect(errorOf(missing).status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, path, {}, { 'x-svc-api-key': 'nope', 'x-svc-auth-token': t.credentials.authToken });
    expect(errorOf(wrong)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
  });
});
