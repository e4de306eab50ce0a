import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/permissionproviderconfig/get';

/** permissionproviderconfig/get's answer; apikeyconfig/get describes the same two fields. */
interface PermissionProviderConfig {
  usePermissionProvider: boolean;
  permissionProviderConfig: { permissionProviderUrl: string; authTokenConfigured: boolean };
}
const DEFAULTS = { usePermissionProvider: false, permissionProviderConfig: { permissionProviderUrl: '', authTokenConfigured: false } };

describe('/v2/workspace/permissionproviderconfig/get', () => {
  it('answers the defaults of a new key: no provider, no URL, no token', async () => {
    const res = await t.callK(path, {});
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Permission provider configuration retrieved successfully.', data: DEFAULTS });
  });

  it('shows what update stored, the auth token only as a flag, and apikeyconfig/get describes the same', async () => {
    await t.callK('/v2/workspace/permissionproviderconfig/update', {
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: 'https://perm.example.com/check', authToken: 'pp-very-secret' },
    });
    const res = await t.callK(path, {});
    const expected = {
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: 'https://perm.example.com/check', authTokenConfigured: true },
    };
    expect(dataOf<PermissionProviderConfig>(res)).toEqual(expected);
    expect(JSON.stringify(res.body)).not.toContain('pp-very-secret');
    const config = await t.callK('/v2/workspace/apikeyconfig/get', {});
    expect({
      usePermissionProvider: dataOf<PermissionProviderConfig>(config).usePermissionProvider,
      permissionProviderConfig: dataOf<PermissionProviderConfig>(config).permissionProviderConfig,
    }).toEqual(expected);
    expect(JSON.stringify(config.body)).not.toContain('pp-very-secret');
  });

  it('reads a key stored before the workspace configuration operations existed with the defaults', async () => {
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
    const other = await createWorkspace(t);
    await t.query('UPDATE api_keys SET settings = ? WHERE id = ?', [JSON.stringify(legacy), other.apiKey]);
    await t.restart();
    expect(dataOf<PermissionProviderConfig>(await t.callPublic(path, {}, other.headersK))).toEqual(DEFAULTS);
    // and its settings can be written from there
    const updated = await t.callPublic(
      '/v2/workspace/permissionproviderconfig/update',
      { permissionProviderConfig: { permissionProviderUrl: 'http://localhost:4000/perm' } },
      other.headersK,
    );
    expect(dataOf<PermissionProviderConfig>(updated)).toEqual({
      usePermissionProvider: false,
      permissionProviderConfig: { permissionProviderUrl: 'http://localhost:4000/perm', authTokenConfigured: false },
    });
  });

  it("shows only the calling key's settings", async () => {
    const other = await createWorkspace(t);
    expect(dataOf<PermissionProviderConfig>(await t.callPublic(path, {}, other.headersK))).toEqual(DEFAULTS);
    expect(dataOf<PermissionProviderConfig>(await t.callK(path, {})).usePermissionProvider).toBe(true);
  });

  it('refuses calls without the API key headers or with a wrong key', async () => {
    const missing = await t.callPublic(path, {});
    expect(missing.status).toBe(400);
    expect(errorOf(missing).status).toBe('INVALID_ARGUMENT');
    const wrong = await call(t.url, path, {}, { 'x-svc-api-key': 'nope', 'x-svc-auth-token': t.credentials.authToken });
    expect(errorOf(wrong)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid API key.' });
  });
});
