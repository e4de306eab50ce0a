import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { documentRole } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
afterAll(() => t?.close());
beforeEach(async () => {
  await t?.close();
  t = await startTestServer();
  // sec (restricted) ; a → b → c → d with x (own access: public) under b ; a document in d
  await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [{ folderId: 'sec', accessType: 'restricted' }, { folderId: 'a' }, { folderId: 'b', parentFolderId: 'a' }, { folderId: 'c', parentFolderId: 'b' }, { folderId: 'd', parentFolderId: 'c' }, { folderId: 'x', parentFolderId: 'b', accessType: 'public' }],
  });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'd', documents: [{ documentId: 'doc', accessType: 'organizationPrivate' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'member' }] });
});

const one = async (folderId: string) => (await t.callK('/v2/organizations/folders/get', { organizationId: 'acme', folderId, maxDepth: 0 })).body.result.data[0];
const update = (folders: unknown[], headers?: Record<string, string>) => t.callK('/v2/organizations/folders/update', { organizationId: 'acme', folders }, headers);

describe('/v2/organizations/folders/update', () => {
  it('renames', async () => {
    const res = await update([{ folderId: 'a', folderName: 'Alpha' }]);
    expect(res.body.result).toEqual({ status: 'success', message: 'Folder Updated successfully.', data: { a: { success: true, id: 'a', message: 'Folder Updated.' } } });
    expect((await one('a')).folderName).toBe('Alpha');
  });

  it('moves a subtree: ancestors recomputed for every subfolder, access propagated to inheriting ones only', async () => {
    expect(await documentRole(t, 'acme', 'member', 'doc')).toBe('editor');
    expect((await update([{ folderId: 'b', parentFolderId: 'sec' }])).body.result.data.b.success).toBe(true);
    expect(await one('b')).toMatchObject({ parentFolderId: 'sec', ancestors: ['root', 'sec'], accessType: 'restricted' });
    expect(await one('c')).toMatchObject({ ancestors: ['root', 'sec', 'b'], accessType: 'restricted' });
    expect(await one('d')).toMatchObject({ ancestors: ['root', 'sec', 'b', 'c'], accessType: 'restricted' });
    expect(await one('x')).toMatchObject({ ancestors: ['root', 'sec', 'b'], accessType: 'public' });
    // the document inside the moved subtree is now restricted: an organization member loses it
    expect(await documentRole(t, 'acme', 'member', 'doc')).toBeNull();
    // and back to the top level
    await update([{ folderId: 'b', parentFolderId: 'root' }]);
    expect(await one('d')).toMatchObject({ ancestors: ['root', 'b', 'c'], accessType: 'public' });
    expect(await documentRole(t, 'acme', 'member', 'doc')).toBe('editor');
    expect((await one('a')).accessType).toBe('public');
  });

  it('refuses a move into itself or a descendant, changing nothing', async () => {
    const res = await update([{ folderId: 'b', parentFolderId: 'd' }, { folderId: 'c', parentFolderId: 'c' }]);
    expect(res.body.result.data).toEqual({
      b: { success: false, id: 'b', message: 'A folder cannot be moved into itself or one of its subfolders.' },
      c: { success: false, id: 'c', message: 'A folder cannot be moved into itself or one of its subfolders.' },
    });
    expect(await one('b')).toMatchObject({ parentFolderId: 'a', ancestors: ['root', 'a'] });
    expect(await one('d')).toMatchObject({ ancestors: ['root', 'a', 'b', 'c'] });
  });

  it('reports an unknown folder or parent per item', async () => {
    const res = await update([{ folderId: 'ghost', folderName: 'x' }, { folderId: 'c', parentFolderId: 'nope' }]);
    expect(res.body.result.data).toEqual({
      ghost: { success: false, id: 'ghost', message: 'Folder does not exist.' },
      c: { success: false, id: 'c', message: 'Parent folder does not exist.' },
    });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/organizations/folders/update', { organizationId: 'acme', folders: [{ folderName: 'x' }] })).body.error.message).toBe('folders[0].folderId is required.');
    const other = await createWorkspace(t);
    const res = await update([{ folderId: 'a', folderName: 'Hijacked' }], other.headersK);
    expect(res.body.result.data.a.success).toBe(false);
    expect((await one('a')).folderName).toBe('');
  });
});
