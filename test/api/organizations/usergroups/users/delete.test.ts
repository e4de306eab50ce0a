import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
const path = '/v2/organizations/usergroups/users/delete';
afterAll(() => t?.close());
beforeEach(async () => {
  await t?.close();
  t = await startTestServer();
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', createOrganization: true, organizationUserGroups: [{ groupId: 'eng' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }, { userId: 'bob' }, { userId: 'cat' }] });
  await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann', 'bob', 'cat'] });
});

const members = async () => {
  // deleteAll lists (and removes) every member: read membership by re-adding afterwards
  const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', deleteAll: true });
  return Object.keys(res.body.result.data).sort();
};

describe(path, () => {
  it('removes the given users; users not in the group fail per user', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann', 'zed'] });
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Deleted users from group successfully.',
      data: {
        ann: { success: true, organizationUserGroupId: 'eng', message: 'User deleted from organization user group.' },
        zed: { success: false, organizationUserGroupId: 'eng', message: 'User is not in the organization user group.' },
      },
    });
    expect(await members()).toEqual(['bob', 'cat']);
  });

  it('deleteAll removes everyone, and wins over userIds when both are sent', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann'], deleteAll: true });
    expect(Object.keys(res.body.result.data).sort()).toEqual(['ann', 'bob', 'cat']);
    expect(await members()).toEqual([]);
  });

  it('needs userIds or deleteAll, a known group, and keeps API keys apart', async () => {
    expect((await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng' })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'Either userIds or deleteAll: true is required.' });
    expect((await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', deleteAll: true })).status).toBe(404);
    const other = await createWorkspace(t);
    expect((await t.callPublic(path, { organizationId: 'acme', organizationUserGroupId: 'eng', deleteAll: true }, other.headersK)).status).toBe(404);
    expect(await members()).toEqual(['ann', 'bob', 'cat']);
  });
});
