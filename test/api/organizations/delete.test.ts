import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/organizations/delete', () => {
  it('deletes the organization with its folders, documents, memberships and groups', async () => {
    await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f' }] });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'f', documents: [{ documentId: 'd' }] });
    await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }] });
    await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'g' }] });

    const res = await t.callK('/v2/organizations/delete', { organizationIds: ['acme', 'ghost'] });
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Organization(s) deleted successfully.',
      data: {
        acme: { success: true, id: 'acme', message: 'Deleted Successfully' },
        ghost: { success: false, id: 'ghost', message: 'Organization does not exist' },
      },
    });
    expect((await t.callK('/v2/organizations/get', { organizationIds: ['acme'] })).body.result.data).toEqual([]);

    // re-created empty: nothing of the old content is there
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme' })).body.result.data).toEqual([]);
    expect((await t.callK('/v2/organizations/folders/get', { organizationId: 'acme' })).body.result.data).toEqual([]);
    const access = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ann'] });
    expect(access.body.result.data.ann.organization.acme.errorCode).toBe('permission_denied');
    // the group went with its organization: adding to it fails per user (user-group bulk outcomes, interface.md)
    expect(
      (await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'g', userIds: ['ann'] })).body.result.data,
    ).toEqual({
      ann: { success: false, organizationUserGroupId: 'g', message: 'Organization user group does not exist: g.' },
    });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/organizations/delete', { organizationIds: [] })).body.error.message).toBe('organizationIds must have at least 1 item(s).');
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'kept' }] });
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/organizations/delete', { organizationIds: ['kept'] }, other.headersK);
    expect(res.body.result.data.kept.success).toBe(false);
    expect((await t.callK('/v2/organizations/get', { organizationIds: ['kept'] })).body.result.data).toHaveLength(1);
  });
});
