import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
});
afterAll(() => t.close());

const path = '/v2/workspace/activityconfig/get';
const createdAt = async () => (await t.callK('/v2/workspace/apikeyconfig/get', {})).body.result.data.createdAt as number;
const addActivity = () =>
  t.callK('/v2/activities/add', {
    organizationId: 'acme',
    activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 'x' }],
  });

describe('/v2/workspace/activityconfig/get', () => {
  it('answers the defaults of a new key: activity logs on since the key was created', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Activity logs configuration retrieved successfully.',
      data: { activityServiceConfig: { isEnabled: true, enabledTime: await createdAt() } },
    });
    // apikeyconfig/get describes the same setting
    expect((await t.callK('/v2/workspace/apikeyconfig/get', {})).body.result.data.activityServiceConfig).toEqual(res.body.result.data.activityServiceConfig);
  });

  it('reads a key stored before the workspace configuration operations existed as on, and activities/add works for it', async () => {
    expect((await t.callK('/v2/workspace/activityconfig/update', { activityServiceConfig: { isEnabled: false } })).status).toBe(200);
    // the settings JSON as the first versions wrote it: no activityServiceConfig at all
    const legacy = {
      useEmailService: false,
      useWebhookService: false,
      useNotificationService: false,
      requireAutoOrgUser: false,
      enablePrivateComments: false,
      requireJwtToken: false,
      defaultDocumentAccessType: 'public',
      emailServiceConfig: { type: 'default' },
      webhookServiceConfig: {},
      notificationTriggers: null,
      emailTriggers: null,
      aiProviders: {},
    };
    t.server.app.storage.engine.main.sqlite.prepare('UPDATE api_keys SET settings = ? WHERE id = ?').run(JSON.stringify(legacy), t.credentials.apiKey);
    await t.restart();
    expect((await t.callK(path, {})).body.result.data).toEqual({ activityServiceConfig: { isEnabled: true, enabledTime: await createdAt() } });
    expect((await addActivity()).status).toBe(200);
  });

  it("shows only the calling key's setting", async () => {
    const other = await createWorkspace(t);
    await t.callK('/v2/workspace/activityconfig/update', { activityServiceConfig: { isEnabled: false } }, other.headersK);
    expect((await t.callPublic(path, {}, other.headersK)).body.result.data.activityServiceConfig.isEnabled).toBe(false);
    expect((await t.callK(path, {})).body.result.data.activityServiceConfig.isEnabled).toBe(true);
  });

  it('refuses calls without the API key headers or with a wrong key', async () => {
    const missing = await t.callPublic(path, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, path, {}, { 'x-svc-api-key': 'nope', 'x-svc-auth-token': t.credentials.authToken });
    expect(wrong.body.error).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
  });
});
