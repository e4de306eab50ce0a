import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'team', accessType: 'restricted' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'd1', accessType: 'restricted' }, { documentId: 'd2' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'team', users: [{ userId: 'teammate' }] });
});
afterAll(() => t.close());

const folderOf = async (id: string) => (await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [id] })).body.result.data[0].folderId;

describe('/v2/organizations/documents/move', () => {
  it('moves documents into a folder (its members gain access) and back to root', async () => {
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBeNull();
    const res = await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1', 'd2'], folderId: 'team' });
    expect(res.body.result).toEqual({ status: 'success', message: 'Documents moved successfully.' });
    expect(await folderOf('d1')).toBe('team');
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBe('editor');
    await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1'], folderId: 'root' });
    expect(await folderOf('d1')).toBe('root');
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBeNull();
  });

  it('refuses an unknown folder or document, moving nothing', async () => {
    const noFolder = await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1'], folderId: 'nope' });
    expect(noFolder.status).toBe(404);
    expect(noFolder.body.error.message).toBe('Folder does not exist: nope. Pass createFolder: true to create it.');
    const noDoc = await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1', 'ghost'], folderId: 'team' });
    expect(noDoc.status).toBe(404);
    expect(await folderOf('d1')).toBe('root');
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1'] })).body.error.message).toBe('folderId is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/documents/move', { organizationId: 'acme', documentIds: ['d1'], folderId: 'team' }, other.headersK)).status).toBe(404);
    expect(await folderOf('d1')).toBe('root');
  });
});
