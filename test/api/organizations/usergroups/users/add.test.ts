import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

/** The per-user outcomes of the user-group membership operations, keyed by user id. */
type UserOutcomes = Record<string, { success: boolean; organizationUserGroupId: string; message: string }>;

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
    expect(resultOf(res)).toEqual({
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
    expect(Object.keys(dataOf<UserOutcomes>(removed)).sort()).toEqual(['ann', 'bob']);
  });

  it('an unknown group fails each user inside a success envelope, naming the group, and writes nothing', async () => {
    const res = await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'nope', userIds: ['ann', 'ghost', 'ann'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Added organization users to group successfully.',
      data: {
        ann: { success: false, organizationUserGroupId: 'nope', message: 'Organization user group does not exist: nope.' },
        ghost: { success: false, organizationUserGroupId: 'nope', message: 'Organization user group does not exist: nope.' },
      },
    });
    // a group of that id made afterwards has no members from the failed call
    await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'nope' }] });
    expect(
      resultOf(await t.callK('/v2/organizations/usergroups/users/delete', { organizationId: 'acme', organizationUserGroupId: 'nope', deleteAll: true })).data,
    ).toEqual({});
    // a group of another organization is not this one's
    const elsewhere = await t.callK(path, { organizationId: 'elsewhere', organizationUserGroupId: 'eng', userIds: ['ann'] });
    expect(dataOf<UserOutcomes>(elsewhere)).toEqual({
      ann: { success: false, organizationUserGroupId: 'eng', message: 'Organization user group does not exist: eng.' },
    });
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng' })).message).toBe('userIds is required.');
  });

  it("cannot use another API key's groups: each user fails, and the group keeps its members", async () => {
    await t.callK(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['ann'] });
    const other = await createWorkspace(t);
    await t.callPublic('/v2/users/add', { organizationId: 'acme', createOrganization: true, users: [{ userId: 'bob' }] }, other.headersK);
    const res = await t.callPublic(path, { organizationId: 'acme', organizationUserGroupId: 'eng', userIds: ['bob'] }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<UserOutcomes>(res)).toEqual({
      bob: { success: false, organizationUserGroupId: 'eng', message: 'Organization user group does not exist: eng.' },
    });
    const members = await t.callK('/v2/organizations/usergroups/users/delete', { organizationId: 'acme', organizationUserGroupId: 'eng', deleteAll: true });
    expect(Object.keys(dataOf<UserOutcomes>(members))).toEqual(['ann']);
  });
});
