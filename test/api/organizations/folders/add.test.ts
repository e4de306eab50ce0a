import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const folder = async (folderId: string) => (await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId, maxDepth: 0 })).body.result.data[0];

describe('/v2/organizations/folders/add', () => {
  it('creates nested folders in one request (a parent earlier in the list), with ancestors and access', async () => {
    const res = await t.callK('/v2/organizations/folders/add', {
      organizationId: 'acme',
      createOrganization: true,
      folders: [{ folderId: 'a', folderName: 'A' }, { folderId: 'b', parentFolderId: 'a', accessType: 'restricted' }, { folderId: 'c', parentFolderId: 'b' }, { folderId: 'top', parentFolderId: 'root' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Folder created successfully.');
    expect(res.body.result.data).toEqual({
      a: { success: true, id: 'a', message: 'Folder added.' },
      b: { success: true, id: 'b', message: 'Folder added.' },
      c: { success: true, id: 'c', message: 'Folder added.' },
      top: { success: true, id: 'top', message: 'Folder added.' },
    });
    expect(await folder('a')).toMatchObject({ folderId: 'a', folderName: 'A', parentFolderId: 'root', ancestors: ['root'], accessType: 'public', inheritAccessFromParent: true, organizationId: 'acme' });
    expect(await folder('b')).toMatchObject({ parentFolderId: 'a', ancestors: ['root', 'a'], accessType: 'restricted', inheritAccessFromParent: false });
    expect(await folder('c')).toMatchObject({ parentFolderId: 'b', ancestors: ['root', 'a', 'b'], accessType: 'restricted', inheritAccessFromParent: true });
  });

  it('reports an existing folder and a missing parent per item', async () => {
    const res = await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'a' }, { folderId: 'orphan', parentFolderId: 'nope' }] });
    expect(res.body.result.data).toEqual({
      a: { success: false, id: 'a', message: 'Folder already exists.' },
      orphan: { success: false, id: 'orphan', message: 'Parent folder does not exist.' },
    });
    expect((await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId: 'orphan' })).status).toBe(404);
  });

  it('validates the input', async () => {
    expect((await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'root' }] })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'folders[0].folderId must not be "root" (the name of the top level).' });
    expect((await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'x', accessType: 'secret' }] })).body.error.message).toBe('folders[0].accessType must be one of: public, restricted, organizationPrivate.');
    const noOrg = await t.callK('/v2/organizations/folders/add', { organizationId: 'nope', folders: [{ folderId: 'x' }] });
    expect(noOrg.status).toBe(404);
  });

  it("keeps API keys apart", async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/folders/add', { organizationId: 'acme', folders: [{ folderId: 'x' }] }, other.headersK)).status).toBe(404);
    expect((await t.callPublic('/v2/organizations/folders/get', { organizationId: 'acme', folderId: 'a' }, other.headersK)).status).toBe(404);
  });
});
