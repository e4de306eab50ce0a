import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { describeFolder } from '../../../../server/services/folders.ts';
import type { Outcomes } from '../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A folder as /v2/organizations/folders/get answers it, with its subfolders nested. */
type FolderNode = ReturnType<typeof describeFolder> & { subFolders?: FolderNode[] };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const PATH = '/v2/organizations/folders/add';
const add = (data: unknown, headers?: Record<string, string>) => t.callK(PATH, data, headers);
const tree = async (organizationId: string, headers?: Record<string, string>) => {
  const res = await t.callK('/v2/organizations/folders/get', { organizationId }, headers);
  expect(res.status).toBe(200);
  return dataOf<FolderNode[]>(res);
};
/** One folder as /v2/organizations/folders/get reports it (null: NOT_FOUND). */
const one = async (organizationId: string, folderId: string, headers?: Record<string, string>) => {
  const res = await t.callK('/v2/organizations/folders/get', { organizationId, folderId, maxDepth: 0 }, headers);
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return dataOf<FolderNode[]>(res)[0];
};
/** `{ id: [children] }` of a folders/get tree, for comparing structure. */
const shape = (nodes: FolderNode[]): Record<string, unknown> => Object.fromEntries(nodes.map((n) => [n.folderId, n.subFolders ? shape(n.subFolders) : {}]));

describe('/v2/organizations/folders/add', () => {
  it('creates a nested tree in one request (each parent earlier in the list), creating the organization', async () => {
    const before = Date.now();
    const res = await add({
      organizationId: 'acme',
      createOrganization: true,
      folders: [
        { folderId: 'a', folderName: 'A' },
        { folderId: 'b', folderName: 'B', parentFolderId: 'a', accessType: 'restricted' },
        { folderId: 'c', parentFolderId: 'b' },
        { folderId: 'd', parentFolderId: 'c', accessType: 'organizationPrivate' },
        { folderId: 'e', parentFolderId: 'd' },
        { folderId: 'top', parentFolderId: 'root', accessType: 'restricted' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Folder created successfully.',
      data: {
        a: { success: true, id: 'a', message: 'Folder added.' },
        b: { success: true, id: 'b', message: 'Folder added.' },
        c: { success: true, id: 'c', message: 'Folder added.' },
        d: { success: true, id: 'd', message: 'Folder added.' },
        e: { success: true, id: 'e', message: 'Folder added.' },
        top: { success: true, id: 'top', message: 'Folder added.' },
      },
    });
    expect(shape(await tree('acme'))).toEqual({ a: { b: { c: { d: { e: {} } } } }, top: {} });

    const a = await one('acme', 'a');
    expect(a).toEqual({
      folderId: 'a',
      folderName: 'A',
      organizationId: 'acme',
      parentFolderId: 'root',
      apiKey: t.credentials.apiKey,
      createdAt: expect.any(Number),
      lastUpdated: expect.any(Number),
      ancestors: ['root'],
      accessType: 'public',
      inheritAccessFromParent: true,
    });
    expect(a!.createdAt).toBeGreaterThanOrEqual(before);
    expect(await one('acme', 'b')).toMatchObject({
      folderName: 'B',
      parentFolderId: 'a',
      ancestors: ['root', 'a'],
      accessType: 'restricted',
      inheritAccessFromParent: false,
    });
    // no folderName: an empty name; no accessType: inherited from the parent
    expect(await one('acme', 'c')).toMatchObject({
      folderName: '',
      parentFolderId: 'b',
      ancestors: ['root', 'a', 'b'],
      accessType: 'restricted',
      inheritAccessFromParent: true,
    });
    // an own access type wins over the parent's, and is what its children inherit
    expect(await one('acme', 'd')).toMatchObject({
      parentFolderId: 'c',
      ancestors: ['root', 'a', 'b', 'c'],
      accessType: 'organizationPrivate',
      inheritAccessFromParent: false,
    });
    expect(await one('acme', 'e')).toMatchObject({
      parentFolderId: 'd',
      ancestors: ['root', 'a', 'b', 'c', 'd'],
      accessType: 'organizationPrivate',
      inheritAccessFromParent: true,
    });
    // parentFolderId "root" is the top level
    expect(await one('acme', 'top')).toMatchObject({ parentFolderId: 'root', ancestors: ['root'], accessType: 'restricted', inheritAccessFromParent: false });

    // the organization now exists: a second add needs no createOrganization
    const again = await add({ organizationId: 'acme', folders: [{ folderId: 'later', parentFolderId: 'e' }] });
    expect(dataOf<Outcomes>(again)).toEqual({ later: { success: true, id: 'later', message: 'Folder added.' } });
    expect(await one('acme', 'later')).toMatchObject({ ancestors: ['root', 'a', 'b', 'c', 'd', 'e'], accessType: 'organizationPrivate' });
  });

  it('adds folders in list order: a child listed before its parent fails', async () => {
    const res = await add({ organizationId: 'order', createOrganization: true, folders: [{ folderId: 'kid', parentFolderId: 'mum' }, { folderId: 'mum' }] });
    expect(dataOf<Outcomes>(res)).toEqual({
      kid: { success: false, id: 'kid', message: 'Parent folder does not exist.' },
      mum: { success: true, id: 'mum', message: 'Folder added.' },
    });
    expect(shape(await tree('order'))).toEqual({ mum: {} });
  });

  it("reports 'Folder already exists.' and 'Parent folder does not exist.' per item, adding the rest and changing nothing else", async () => {
    await add({ organizationId: 'dup', createOrganization: true, folders: [{ folderId: 'x', folderName: 'Original', accessType: 'restricted' }] });
    const res = await add({
      organizationId: 'dup',
      folders: [
        { folderId: 'x', folderName: 'Overwritten?', accessType: 'public', parentFolderId: 'y' },
        { folderId: 'orphan', parentFolderId: 'nope' },
        { folderId: 'y' },
        { folderId: 'child-of-x', parentFolderId: 'x' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Folder created successfully.');
    expect(dataOf<Outcomes>(res)).toEqual({
      x: { success: false, id: 'x', message: 'Folder already exists.' },
      orphan: { success: false, id: 'orphan', message: 'Parent folder does not exist.' },
      y: { success: true, id: 'y', message: 'Folder added.' },
      'child-of-x': { success: true, id: 'child-of-x', message: 'Folder added.' },
    });
    expect(await one('dup', 'x')).toMatchObject({ folderName: 'Original', parentFolderId: 'root', accessType: 'restricted', inheritAccessFromParent: false });
    expect(await one('dup', 'orphan')).toBeNull();
    expect(await one('dup', 'child-of-x')).toMatchObject({ ancestors: ['root', 'x'], accessType: 'restricted' });
    expect(shape(await tree('dup'))).toEqual({ x: { 'child-of-x': {} }, y: {} });
  });

  it('keeps organizations of one API key apart: a parent in another organization does not exist', async () => {
    await add({ organizationId: 'org-1', createOrganization: true, folders: [{ folderId: 'shared-id', folderName: 'one', accessType: 'restricted' }] });
    const res = await add({
      organizationId: 'org-2',
      createOrganization: true,
      folders: [
        { folderId: 'shared-id', folderName: 'two' },
        { folderId: 'kid', parentFolderId: 'only-in-1' },
      ],
    });
    expect(dataOf<Outcomes>(res)).toEqual({
      'shared-id': { success: true, id: 'shared-id', message: 'Folder added.' },
      kid: { success: false, id: 'kid', message: 'Parent folder does not exist.' },
    });
    expect(await one('org-1', 'shared-id')).toMatchObject({ folderName: 'one', organizationId: 'org-1', accessType: 'restricted' });
    expect(await one('org-2', 'shared-id')).toMatchObject({ folderName: 'two', organizationId: 'org-2', accessType: 'public' });
  });

  it('answers NOT_FOUND for a missing organization without createOrganization, creating nothing', async () => {
    for (const createOrganization of [undefined, false]) {
      const res = await add({ organizationId: 'nope', createOrganization, folders: [{ folderId: 'x' }] });
      expect(res.status).toBe(404);
      expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: nope. Pass createOrganization: true to create it.' });
    }
    expect(await tree('nope')).toEqual([]);
    const orgs = await t.callK('/v2/organizations/get', { organizationIds: ['nope'] });
    expect(dataOf<unknown[]>(orgs)).toEqual([]);
  });

  it('refuses folderId "root" with INVALID_ARGUMENT naming the field, and adds nothing of that request', async () => {
    const res = await add({ organizationId: 'acme', folders: [{ folderId: 'fine' }, { folderId: 'root' }] });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'folders[1].folderId must not be "root" (the name of the top level).' });
    expect(await one('acme', 'fine')).toBeNull();
  });

  it('takes any well-formed text as an id, and refuses a lone surrogate with INVALID_ARGUMENT (not a 500)', async () => {
    const ok = await add({
      organizationId: 'text-ids',
      createOrganization: true,
      folders: [{ folderId: '📁 a/b %2F' }, { folderId: 'ünï', parentFolderId: '📁 a/b %2F' }],
    });
    expect(Object.values(dataOf<Outcomes>(ok)).map((o) => o.success)).toEqual([true, true]);
    expect(await one('text-ids', 'ünï')).toMatchObject({ parentFolderId: '📁 a/b %2F', ancestors: ['root', '📁 a/b %2F'] });
    expect(shape(await tree('text-ids'))).toEqual({ '📁 a/b %2F': { ünï: {} } });

    const res = await add({ organizationId: 'lone', createOrganization: true, folders: [{ folderId: 'fine' }, { folderId: 'x\ud800' }] });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'folders[1].folderId must be well-formed Unicode text.' });
    // the whole request is refused: neither the organization nor the first folder exists
    expect(dataOf<unknown[]>(await t.callK('/v2/organizations/get', { organizationIds: ['lone'] }))).toEqual([]);
  });

  it('validates the rest of the input', async () => {
    const bad = async (data: unknown, message: string) => {
      const res = await add(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    };
    await bad({ folders: [{ folderId: 'x' }] }, 'organizationId is required.');
    await bad({ organizationId: 'acme' }, 'folders is required.');
    await bad({ organizationId: 'acme', folders: [] }, 'folders must have at least 1 item(s).');
    await bad({ organizationId: 'acme', folders: [{ folderName: 'x' }] }, 'folders[0].folderId is required.');
    await bad({ organizationId: 'acme', folders: [{ folderId: '' }] }, 'folders[0].folderId must not be empty.');
    await bad(
      { organizationId: 'acme', folders: [{ folderId: 'x', accessType: 'secret' }] },
      'folders[0].accessType must be one of: public, restricted, organizationPrivate.',
    );
    await bad({ organizationId: 'acme', createOrganization: 'yes', folders: [{ folderId: 'x' }] }, 'createOrganization must be a boolean, not a string.');
    expect(await one('acme', 'x')).toBeNull();
  });

  it("keeps API keys apart: another key neither sees nor changes this key's folders", async () => {
    const other = await createWorkspace(t);
    // the organization of the first key does not exist for the second
    const missing = await add({ organizationId: 'acme', folders: [{ folderId: 'x' }] }, other.headersK);
    expect(missing.status).toBe(404);
    expect(errorOf(missing).status).toBe('NOT_FOUND');
    // the same ids are free under the other key, and the first key's folders are no parents there
    const res = await add(
      {
        organizationId: 'acme',
        createOrganization: true,
        folders: [
          { folderId: 'a', folderName: 'Theirs' },
          { folderId: 'z', parentFolderId: 'b' },
        ],
      },
      other.headersK,
    );
    expect(dataOf<Outcomes>(res)).toEqual({
      a: { success: true, id: 'a', message: 'Folder added.' },
      z: { success: false, id: 'z', message: 'Parent folder does not exist.' },
    });
    expect(shape(await tree('acme', other.headersK))).toEqual({ a: {} });
    expect(await one('acme', 'a', other.headersK)).toMatchObject({ folderName: 'Theirs', apiKey: other.apiKey });
    expect(await one('acme', 'a')).toMatchObject({ folderName: 'A', apiKey: t.credentials.apiKey });
    expect(shape(await tree('acme'))).toEqual({ a: { b: { c: { d: { e: { later: {} } } } } }, top: {} });
  });
});
