import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'a', accessType: 'restricted' }, { folderId: 'b', parentFolderId: 'a' }, { folderId: 'keep' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'b', documents: [{ documentId: 'in-b' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'keep', documents: [{ documentId: 'kept' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'a', users: [{ userId: 'fm' }] });
});
afterAll(() => t.close());

describe('/v2/organizations/folders/delete', () => {
  it('deletes the folder, its subfolders, their documents and folder memberships', async () => {
    const res = await t.callK('/v2/organizations/folders/delete', { organizationId: 'acme', folderId: 'a' });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ status: 'success', message: 'Folder deletion initiated successfully.', data: null });
    expect((await t.callK('/v2/organizations/folders/get', { organizationId: 'acme' })).body.result.data.map((f: any) => f.folderId)).toEqual(['keep']);
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['in-b'] })).status).toBe(404);
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['kept'] })).status).toBe(200);
    // a new folder with the same id starts without the old membership
    await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'a', accessType: 'restricted' }] });
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'a', documents: [{ documentId: 'new' }] });
    expect(await documentRole(t, 'acme', 'fm', 'new')).toBeNull();
  });

  it('answers NOT_FOUND for an unknown folder and keeps API keys apart', async () => {
    const res = await t.callK('/v2/organizations/folders/delete', { organizationId: 'acme', folderId: 'ghost' });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/folders/delete', { organizationId: 'acme', folderId: 'keep' }, other.headersK)).status).toBe(404);
    expect((await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId: 'keep' })).status).toBe(200);
    expect((await t.callK('/v2/organizations/folders/delete', { organizationId: 'acme' })).body.error.message).toBe('folderId is required.');
  });
});
