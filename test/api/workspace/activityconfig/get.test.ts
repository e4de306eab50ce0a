import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
});
afterAll(() => t.close());

const path = '/v2/workspace/activityconfig/get';

/** activityconfig/get's answer; apikeyconfig/get describes the same setting beside the key's createdAt. */
interface ActivityConfig {
  activityServiceConfig: { isEnabled: boolean; enabledTime: number | null };
}
interface KeyConfig extends ActivityConfig {
  createdAt: number;
}
const createdAt = async () => dataOf<KeyConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {})).createdAt;
const addActivity = () =>
  t.callK('/v2/activities/add', {
    organizationId: 'acme',
    activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 'x' }],
  });

describe('/v2/workspace/activityconfig/get', () => {
  it('answers the defaults of a new key: activity logs on since the key was created', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Activity logs configuration retrieved successfully.',
      data: { activityServiceConfig: { isEnabled: true, enabledTime: await createdAt() } },
    });
    // apikeyconfig/get describes the same setting
    expect(dataOf<KeyConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {})).activityServiceConfig).toEqual(
      dataOf<ActivityConfig>(res).activityServiceConfig,
    );
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
    await t.query('UPDATE api_keys SET settings = ? WHERE id = ?', [JSON.stringify(legacy), t.credentials.apiKey]);
    await t.restart();
    expect(dataOf<ActivityConfig>(await t.callK(path, {}))).toEqual({ activityServiceConfig: { isEnabled: true, enabledTime: await createdAt() } });
    expect((await addActivity()).status).toBe(200);
  });

  it("shows only the calling key's setting", async () => {
    const other = await createWorkspace(t);
    await t.callK('/v2/workspace/activityconfig/update', { activityServiceConfig: { isEnabled: false } }, other.headersK);
    expect(dataOf<ActivityConfig>(await t.callPublic(path, {}, other.headersK)).activityServiceConfig.isEnabled).toBe(false);
    expect(dataOf<ActivityConfig>(await t.callK(path, {})).activityServiceConfig.isEnabled).toBe(true);
  });

  it('refuses calls without the API key headers or with a wrong key', async () => {
    const missing = await t.callPublic(path, {});
    expect(missing.status).toBe(400);
    expect(errorOf(missing).status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, path, {}, { 'x-svc-api-key': 'nope', 'x-svc-auth-token': t.credentials.authToken });
    expect(errorOf(wrong)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
  });
});
