import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startReceiver, type Receiver } from '../../../helpers/receiver.ts';
import { dataOf, errorOf, resultOf, startTestServer, type Headers_, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
let provider: Receiver;
beforeAll(async () => {
  t = await startTestServer();
  // a real HTTP server where a permission provider would be: it must never be called
  provider = await startReceiver({ fallback: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"data":[]}' } });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

const path = '/v2/workspace/permissionproviderconfig/update';

/** permissionproviderconfig/get and /update answer this. */
interface PermissionProviderConfig {
  usePermissionProvider: boolean;
  permissionProviderConfig: { permissionProviderUrl: string; authTokenConfigured: boolean };
}
/** auth/permissions/get's answer for the user and document of the last test. */
interface DocumentAccess {
  documents: { memo: { accessRole?: string; errorCode?: string } };
}
interface Permissions {
  member: DocumentAccess;
  stranger: DocumentAccess;
}
const get = async (headers?: Headers_) => dataOf<PermissionProviderConfig>(await t.callK('/v2/workspace/permissionproviderconfig/get', {}, headers));
const storedToken = async () =>
  (
    await t.query<{ value_enc: string }>("SELECT value_enc FROM api_key_secrets WHERE api_key_id = ? AND name = 'permissionProvider:authToken'", [
      t.credentials.apiKey,
    ])
  )[0];

describe('/v2/workspace/permissionproviderconfig/update', () => {
  it('stores the provider URL and switch and the auth token encrypted, answering the token only as a flag', async () => {
    const res = await t.callK(path, {
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: `${provider.url}/access`, authToken: 'pp-secret-token' },
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Permission provider configuration updated successfully.',
      data: { usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: `${provider.url}/access`, authTokenConfigured: true } },
    });
    expect(JSON.stringify(res.body)).not.toContain('pp-secret-token');
    expect(await get()).toEqual(dataOf<PermissionProviderConfig>(res));
    const row = await storedToken();
    expect(row?.value_enc).toBeTruthy();
    expect(row?.value_enc).not.toContain('pp-secret-token');
  });

  it('updates partially: a new URL keeps the token, the switch alone keeps both, empty strings clear', async () => {
    await t.callK(path, { permissionProviderConfig: { permissionProviderUrl: ' https://perm.example.com/v2/check ' } });
    expect(await get()).toEqual({
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: 'https://perm.example.com/v2/check', authTokenConfigured: true },
    });
    await t.callK(path, { usePermissionProvider: false });
    expect(await get()).toEqual({
      usePermissionProvider: false,
      permissionProviderConfig: { permissionProviderUrl: 'https://perm.example.com/v2/check', authTokenConfigured: true },
    });
    const cleared = await t.callK(path, { permissionProviderConfig: { authToken: '', permissionProviderUrl: '' } });
    expect(dataOf<PermissionProviderConfig>(cleared)).toEqual({
      usePermissionProvider: false,
      permissionProviderConfig: { permissionProviderUrl: '', authTokenConfigured: false },
    });
    expect(await storedToken()).toBeUndefined();
  });

  it('refuses a URL that is not http(s) with the hosted message, and an empty update, changing nothing', async () => {
    await t.callK(path, {
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: 'https://kept.example.com', authToken: 'kept-token' },
    });
    const before = await get();
    for (const permissionProviderUrl of ['not a url', 'example.com/perm', 'ftp://example.com/perm', 'javascript:alert(1)', 'mailto:a@example.com', 'http://']) {
      const res = await t.callK(path, { usePermissionProvider: false, permissionProviderConfig: { permissionProviderUrl, authToken: 'other-token' } });
      expect({ permissionProviderUrl, status: res.status, error: errorOf(res) }).toEqual({
        permissionProviderUrl,
        status: 400,
        error: { status: 'INVALID_ARGUMENT', message: 'Please enter a valid URL' },
      });
    }
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'At least one of usePermissionProvider or permissionProviderConfig must be provided'],
      [{ usePermissionProvider: 'yes' }, 'usePermissionProvider must be a boolean, not a string.'],
      [{ permissionProviderConfig: { permissionProviderUrl: 42 } }, 'permissionProviderConfig.permissionProviderUrl must be a string, not a number.'],
      [{ permissionProviderConfig: { authToken: null } }, 'permissionProviderConfig.authToken must be a string, not null.'],
      [
        { permissionProviderConfig: { permissionProviderUrl: `https://example.com/${'x'.repeat(2048)}` } },
        'permissionProviderConfig.permissionProviderUrl must be at most 2048 characters long.',
      ],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(path, data);
      expect({ data: JSON.stringify(data).slice(0, 80), status: res.status, error: errorOf(res) }).toEqual({
        data: JSON.stringify(data).slice(0, 80),
        status: 400,
        error: { status: 'INVALID_ARGUMENT', message },
      });
    }
    expect(await get()).toEqual(before);
  });

  it("is asked in the provider mode (a bad answer denies), Hearth's own memberships decide when it is off", async () => {
    await t.callK(path, {
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: `${provider.url}/access`, authToken: 'pp-secret-token' },
    });
    await t.callK('/v2/organizations/documents/add', {
      organizationId: 'acme',
      createOrganization: true,
      documents: [{ documentId: 'memo', accessType: 'restricted' }],
    });
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'memo', users: [{ userId: 'member' }] });
    const asked = provider.received.length;
    const during = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['member'], documentIds: ['memo'] });
    // the receiver answers {"data":[]}, no signed decisions: fail closed, whatever the memberships say
    expect(dataOf<Permissions>(during).member.documents.memo.errorCode).toBe('permission_denied');
    expect(provider.received.length).toBe(asked + 1);
    expect(provider.received.at(-1)?.path).toBe('/access');
    expect(provider.received.at(-1)?.headers.authorization).toBe('Bearer pp-secret-token');

    await t.callK(path, { usePermissionProvider: false });
    const res = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['member', 'stranger'], documentIds: ['memo'] });
    expect(dataOf<Permissions>(res).member.documents.memo.accessRole).toBe('editor');
    expect(dataOf<Permissions>(res).stranger.documents.memo.errorCode).toBe('permission_denied');
    expect(provider.received.length).toBe(asked + 1);
  });

  it("changes only the calling key's settings", async () => {
    const other = await createWorkspace(t);
    const mine = await get();
    await t.callK(
      path,
      { usePermissionProvider: !mine.usePermissionProvider, permissionProviderConfig: { permissionProviderUrl: 'https://theirs.example.com', authToken: '' } },
      other.headersK,
    );
    expect(await get()).toEqual(mine);
    expect(await storedToken()).toBeDefined();
    await t.callK(path, { permissionProviderConfig: { permissionProviderUrl: 'https://mine.example.com', authToken: 'mine-2' } });
    expect(await get(other.headersK)).toEqual({
      usePermissionProvider: !mine.usePermissionProvider,
      permissionProviderConfig: { permissionProviderUrl: 'https://theirs.example.com', authTokenConfigured: false },
    });
  });
});
