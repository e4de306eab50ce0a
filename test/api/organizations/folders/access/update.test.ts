import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'p' }, { folderId: 'q', parentFolderId: 'p' }, { folderId: 'r', parentFolderId: 'q', accessType: 'organizationPrivate' }] });
});
afterAll(() => t.close());

const path = '/v2/organizations/folders/access/update';
const one = async (folderId: string) => (await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId, maxDepth: 0 })).body.result.data[0];

describe(path, () => {
  it('sets an access type; inheriting subfolders follow, others keep theirs', async () => {
    const res = await t.callK(path, { organizationId: 'acme', folderIds: ['p', 'ghost'], accessType: 'restricted' });
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Updated access for folders successfully.',
      data: { p: { success: true, id: 'p', message: 'Folder access updated.' }, ghost: { success: false, id: 'ghost', message: 'Folder does not exist.' } },
    });
    expect(await one('p')).toMatchObject({ accessType: 'restricted', inheritAccessFromParent: false });
    expect(await one('q')).toMatchObject({ accessType: 'restricted', inheritAccessFromParent: true });
    expect(await one('r')).toMatchObject({ accessType: 'organizationPrivate', inheritAccessFromParent: false });
  });

  it('inheritFromParent true takes the parent’s value again', async () => {
    await t.callK(path, { organizationId: 'acme', folderIds: ['r'], inheritFromParent: true });
    expect(await one('r')).toMatchObject({ accessType: 'restricted', inheritAccessFromParent: true });
    await t.callK(path, { organizationId: 'acme', folderIds: ['p'], inheritFromParent: true });
    expect(await one('r')).toMatchObject({ accessType: 'public' });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK(path, { organizationId: 'acme', folderIds: ['p'] })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'At least one of accessType or inheritFromParent must be provided.' });
    expect((await t.callK(path, { organizationId: 'acme', folderIds: ['p'], inheritFromParent: false })).body.error.message).toBe('accessType is required when inheritFromParent is false.');
    const other = await createWorkspace(t);
    const res = await t.callPublic(path, { organizationId: 'acme', folderIds: ['p'], accessType: 'restricted' }, other.headersK);
    expect(res.body.result.data.p.success).toBe(false);
    expect((await one('p')).accessType).toBe('public');
  });
});
