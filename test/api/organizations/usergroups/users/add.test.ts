import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', createOrganization: true, organizationUserGroups: [{ groupId: 'eng' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }, { userId: 'bob' }] });
});
afterAll(() => t.close());

const path = '/v1/organizations/usergroups/users/add';

describe(path, () => {
  it('adds known users; unknown users fail per user inside a success envelope', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann', 'bob', 'ghost'] });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Added organization users to group successfully.',
      data: {
        ann: { success: true, organizationUserGroupId: 'eng', message: 'User added to organization user group.' },
        bob: { success: true, organizationUserGroupId: 'eng', message: 'User added to organization user group.' },
        ghost: { success: false, organizationUserGroupId: 'eng', message: 'User does not exist.' },
      },
    });
    // they are in the group: deleteAll lists them
    const removed = await t.callK('/v2/organizations/usergroups/users/delete', { organizationId: 'acme', organizationUserGroupId: 'eng', deleteAll: true });
    expect(Object.keys(removed.body.result.data).sort()).toEqual(['ann', 'bob']);
  });

  it('answers NOT_FOUND for an unknown group and validates the input', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', userIds: ['ann'] });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: 'Organization user group does not exist: nope.' });
    expect((await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng' })).body.error.message).toBe('userIds is required.');
  });

  it("cannot use another API key's groups", async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann'] }, other.headersK)).status).toBe(404);
  });
});
