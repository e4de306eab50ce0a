import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

/** The per-user outcomes of the user-group membership operations, keyed by user id. */
type UserOutcomes = Record<string, { success: boolean; organizationUserGroupId: string; message: string }>;

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
  return Object.keys(dataOf<UserOutcomes>(res)).sort();
};

describe(path, () => {
  it('removes the given users; users not in the group fail per user', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann', 'zed'] });
    expect(resultOf(res)).toEqual({
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
    expect(Object.keys(dataOf<UserOutcomes>(res)).sort()).toEqual(['ann', 'bob', 'cat']);
    expect(await members()).toEqual([]);
  });

  it('needs userIds or deleteAll', async () => {
    expect(errorOf(await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Either userIds or deleteAll: true is required.',
    });
    expect(await members()).toEqual(['ann', 'bob', 'cat']);
  });

  it('an unknown group fails each user inside a success envelope, naming the group; deleteAll alone answers no user', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', userIds: ['ann', 'zed'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Deleted users from group successfully.',
      data: {
        ann: { success: false, organizationUserGroupId: 'nope', message: 'Organization user group does not exist: nope.' },
        zed: { success: false, organizationUserGroupId: 'nope', message: 'Organization user group does not exist: nope.' },
      },
    });
    const all = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', deleteAll: true });
    expect({ status: all.status, result: resultOf(all) }).toEqual({
      status: 200,
      result: { status: 'success', message: 'Deleted users from group successfully.', data: {} },
    });
    // with userIds beside deleteAll, each of them is reported
    const both = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', userIds: ['ann'], deleteAll: true });
    expect(dataOf<UserOutcomes>(both)).toEqual({
      ann: { success: false, organizationUserGroupId: 'nope', message: 'Organization user group does not exist: nope.' },
    });
    // eng is the group of organization acme only
    const elsewhere = await t.callK(path, { organizationId: 'elsewhere', organizationUserGroupId: 'eng', userIds: ['ann'], deleteAll: true });
    expect(dataOf<UserOutcomes>(elsewhere).ann!.success).toBe(false);
    expect(await members()).toEqual(['ann', 'bob', 'cat']);
  });

  it("keeps API keys apart: another key's call fails each user and removes no one", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann', 'bob'] }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<UserOutcomes>(res)).toEqual({
      ann: { success: false, organizationUserGroupId: 'eng', message: 'Organization user group does not exist: eng.' },
      bob: { success: false, organizationUserGroupId: 'eng', message: 'Organization user group does not exist: eng.' },
    });
    expect(dataOf<UserOutcomes>(await t.callPublic(path, { organizationId: 'acme', organizationUserGroupId: 'eng', deleteAll: true }, other.headersK))).toEqual(
      {},
    );
    expect(await members()).toEqual(['ann', 'bob', 'cat']);
  });
});
