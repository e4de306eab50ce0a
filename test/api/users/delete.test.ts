import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../helpers/access.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f', accessType: 'restricted' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'd', accessType: 'restricted' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'f', documents: [{ documentId: 'in-f' }] });
});
afterAll(() => t.close());

const everywhere = async (userId: string) => {
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'f', users: [{ userId }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd', users: [{ userId }] });
};

describe('/v1/users/delete', () => {
  it('at organization level removes every membership in the organization', async () => {
    await everywhere('ann');
    const res = await t.callK('/v1/users/delete', { organizationId: 'acme', userIds: ['ann', 'nobody'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'User(s) deleted successfully.',
      data: { ann: { success: true, message: 'User removed.' }, nobody: { success: false, message: 'User does not exist.' } },
    });
    const data = await permissionsOf(t, 'acme', ['ann'], { documentIds: ['d', 'in-f'], folderIds: ['f'] });
    expect(data.ann!.organization.acme!.errorCode).toBe('permission_denied');
    expect(data.ann!.documents.d!.errorCode).toBe('permission_denied');
    expect(data.ann!.documents['in-f']!.errorCode).toBe('permission_denied');
    expect(data.ann!.folders.f!.errorCode).toBe('permission_denied');
  });

  it('at document or folder level removes that membership only', async () => {
    await everywhere('ben');
    await t.callK('/v1/users/delete', { organizationId: 'acme', documentId: 'd', userIds: ['ben'] });
    expect(await documentRole(t, 'acme', 'ben', 'd')).toBeNull();
    expect(await documentRole(t, 'acme', 'ben', 'in-f')).toBe('editor');
    await t.callK('/v1/users/delete', { organizationId: 'acme', folderId: 'f', userIds: ['ben'] });
    expect(await documentRole(t, 'acme', 'ben', 'in-f')).toBeNull();
    expect((await permissionsOf(t, 'acme', ['ben'])).ben!.organization.acme!.accessRole).toBe('editor');
    const again = await t.callK('/v1/users/delete', { organizationId: 'acme', folderId: 'f', userIds: ['ben'] });
    expect(dataOf<Outcomes>(again).ben).toEqual({ success: false, message: 'User does not exist.' });
  });

  it('is served at /v2/users/delete too', async () => {
    await everywhere('cid');
    const res = await t.callK('/v2/users/delete', { organizationId: 'acme', userIds: ['cid'] });
    expect(dataOf<Outcomes>(res).cid).toEqual({ success: true, message: 'User removed.' });
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v1/users/delete', { organizationId: 'acme' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'userIds is required.' });
    expect(errorOf(await t.callK('/v1/users/delete', { organizationId: 'acme', userIds: 'ann' })).message).toBe('userIds must be an array, not a string.');
  });

  it("cannot remove another API key's users", async () => {
    await everywhere('dee');
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v1/users/delete', { organizationId: 'acme', userIds: ['dee'] }, other.headersK);
    expect(dataOf<Outcomes>(res).dee!.success).toBe(false);
    expect(await documentRole(t, 'acme', 'dee', 'd')).toBe('editor');
  });
});
