import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserAccess } from '../../helpers/access.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

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
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Organization(s) deleted successfully.',
      data: {
        acme: { success: true, id: 'acme', message: 'Deleted Successfully' },
        ghost: { success: false, id: 'ghost', message: 'Organization does not exist' },
      },
    });
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/get', { organizationIds: ['acme'] }))).toEqual([]);

    // re-created empty: nothing of the old content is there
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme' }))).toEqual([]);
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/folders/get', { organizationId: 'acme' }))).toEqual([]);
    const access = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ann'] });
    expect(dataOf<Record<string, UserAccess>>(access).ann!.organization.acme!.errorCode).toBe('permission_denied');
    // the group went with its organization: adding to it fails per user (user-group bulk outcomes, interface.md)
    expect(
      dataOf<unknown>(await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'g', userIds: ['ann'] })),
    ).toEqual({
      ann: { success: false, organizationUserGroupId: 'g', message: 'Organization user group does not exist: g.' },
    });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/organizations/delete', { organizationIds: [] })).message).toBe('organizationIds must have at least 1 item(s).');
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'kept' }] });
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/organizations/delete', { organizationIds: ['kept'] }, other.headersK);
    expect(dataOf<Outcomes>(res).kept!.success).toBe(false);
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/get', { organizationIds: ['kept'] }))).toHaveLength(1);
  });
});
