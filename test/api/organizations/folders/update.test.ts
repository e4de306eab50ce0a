import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../helpers/access.ts';
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

const PATH = '/v2/organizations/folders/update';
const CYCLE = 'A folder cannot be moved into itself or one of its subfolders.';
let orgCount = 0;

/**
 * A fresh organization per test:
 *   sec (restricted)
 *   a → b → c → d → e        (all inherit)
 *           b → x            (own access type: public)
 *               c → y        (own access type: organizationPrivate) → y1 (inherits)
 *   bb                       (an id that starts like b's)
 * Documents: "doc" (public) in e, "xdoc" (public) in x, "ydoc" (public) in y1.
 * Users: "member" (organization), "sec-user" (member of folder sec only).
 */
async function seed() {
  const org = `org-${++orgCount}`;
  const added = await t.callK('/v2/organizations/folders/add', {
    organizationId: org,
    createOrganization: true,
    folders: [
      { folderId: 'sec', accessType: 'restricted' },
      { folderId: 'a', folderName: 'A' },
      { folderId: 'b', folderName: 'B', parentFolderId: 'a' },
      { folderId: 'c', parentFolderId: 'b' },
      { folderId: 'd', parentFolderId: 'c' },
      { folderId: 'e', parentFolderId: 'd' },
      { folderId: 'x', parentFolderId: 'b', accessType: 'public' },
      { folderId: 'y', parentFolderId: 'c', accessType: 'organizationPrivate' },
      { folderId: 'y1', parentFolderId: 'y' },
      { folderId: 'bb' },
    ],
  });
  expect(Object.values(dataOf<Outcomes>(added)).every((o) => o.success)).toBe(true);
  for (const [folderId, documentId] of [
    ['e', 'doc'],
    ['x', 'xdoc'],
    ['y1', 'ydoc'],
  ] as const) {
    const res = await t.callK('/v2/organizations/documents/add', { organizationId: org, folderId, documents: [{ documentId, accessType: 'public' }] });
    expect(res.status).toBe(200);
  }
  await t.callK('/v2/users/add', { organizationId: org, users: [{ userId: 'member', accessRole: 'editor' }] });
  await t.callK('/v2/users/add', { organizationId: org, folderId: 'sec', users: [{ userId: 'sec-user', accessRole: 'viewer' }] });
  return org;
}

const update = (organizationId: string, folders: unknown[], headers?: Record<string, string>) => t.callK(PATH, { organizationId, folders }, headers);
const tree = async (organizationId: string, headers?: Record<string, string>) =>
  dataOf<FolderNode[]>(await t.callK('/v2/organizations/folders/get', { organizationId }, headers));
const one = async (organizationId: string, folderId: string) => {
  const res = await t.callK('/v2/organizations/folders/get', { organizationId, folderId, maxDepth: 0 });
  expect(res.status).toBe(200);
  return dataOf<FolderNode[]>(res)[0]!;
};
const shape = (nodes: FolderNode[]): Record<string, unknown> => Object.fromEntries(nodes.map((n) => [n.folderId, n.subFolders ? shape(n.subFolders) : {}]));
const flatten = (nodes: FolderNode[]): FolderNode[] => nodes.flatMap((n) => [n, ...flatten(n.subFolders ?? [])]);
/** Every folder's place and access: `{ id: [ancestors, accessType, inheritAccessFromParent] }`. */
const places = async (organizationId: string) =>
  Object.fromEntries(flatten(await tree(organizationId)).map((f) => [f.folderId, [f.ancestors.join('/'), f.accessType, f.inheritAccessFromParent]]));

describe('/v2/organizations/folders/update', () => {
  it('renames a folder, leaving its place and access alone', async () => {
    const org = await seed();
    const before = await one(org, 'b');
    const res = await update(org, [{ folderId: 'b', folderName: 'Bravo' }]);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Folder Updated successfully.',
      data: { b: { success: true, id: 'b', message: 'Folder Updated.' } },
    });
    const after = await one(org, 'b');
    expect(after).toEqual({ ...before, folderName: 'Bravo', lastUpdated: expect.any(Number) });
    expect(after.lastUpdated).toBeGreaterThanOrEqual(before.lastUpdated);
    // an empty name is a name too; other folders keep theirs
    await update(org, [{ folderId: 'b', folderName: '' }]);
    expect((await one(org, 'b')).folderName).toBe('');
    expect((await one(org, 'a')).folderName).toBe('A');
  });

  it('moves a folder with its deep subtree: ancestors recomputed everywhere, access propagated to inheriting subfolders only', async () => {
    const org = await seed();
    const res = await update(org, [{ folderId: 'b', parentFolderId: 'sec', folderName: 'Moved' }]);
    expect(dataOf<Outcomes>(res)).toEqual({ b: { success: true, id: 'b', message: 'Folder Updated.' } });
    expect(shape(await tree(org))).toEqual({ a: {}, bb: {}, sec: { b: { c: { d: { e: {} }, y: { y1: {} } }, x: {} } } });
    expect(await one(org, 'b')).toMatchObject({ folderName: 'Moved', parentFolderId: 'sec' });
    expect(await places(org)).toEqual({
      sec: ['root', 'restricted', false],
      a: ['root', 'public', true],
      bb: ['root', 'public', true],
      b: ['root/sec', 'restricted', true],
      c: ['root/sec/b', 'restricted', true],
      d: ['root/sec/b/c', 'restricted', true],
      e: ['root/sec/b/c/d', 'restricted', true],
      // own access types are kept, and what is below them follows them, not the new parent
      x: ['root/sec/b', 'public', false],
      y: ['root/sec/b/c', 'organizationPrivate', false],
      y1: ['root/sec/b/c/y', 'organizationPrivate', true],
    });
    // parents are unchanged below the moved folder
    expect(await one(org, 'e')).toMatchObject({ parentFolderId: 'd' });
  });

  it('makes a document in a moved restricted subtree restricted: an organization member loses it, a member of the new ancestor gains it', async () => {
    const org = await seed();
    const before = await permissionsOf(t, org, ['member', 'sec-user'], { documentIds: ['doc', 'xdoc', 'ydoc'], folderIds: ['e'] });
    expect(before.member!.documents.doc).toMatchObject({ accessRole: 'editor', accessType: 'public' });
    expect(before['sec-user']!.documents.doc).toMatchObject({ accessRole: 'editor', accessType: 'public' }); // public: open to every user

    await update(org, [{ folderId: 'b', parentFolderId: 'sec' }]);
    const after = await permissionsOf(t, org, ['member', 'sec-user'], { documentIds: ['doc', 'xdoc', 'ydoc'], folderIds: ['e'] });
    // doc (public) is in e, which now inherits restricted from sec five levels up
    expect(after.member!.documents.doc!.errorCode).toBe('permission_denied');
    expect(after.member!.documents.doc!.reasons).toContain('the document is public, but its folder "e" makes it restricted');
    expect(after.member!.folders.e!.errorCode).toBe('permission_denied');
    // the membership of sec reaches through the recomputed ancestors of e
    expect(after['sec-user']!.documents.doc).toMatchObject({ accessRole: 'viewer', accessType: 'restricted' });
    expect(after['sec-user']!.documents.doc!.reasons).toContain('viewer through membership of folder "sec"');
    expect(after['sec-user']!.folders.e).toMatchObject({ accessRole: 'viewer', accessType: 'restricted' });
    // x keeps its own public type: its document stays open to the organization member
    expect(after.member!.documents.xdoc).toMatchObject({ accessRole: 'editor', accessType: 'public' });
    // y is organizationPrivate of its own: its document is organizationPrivate, the member keeps it
    expect(after.member!.documents.ydoc).toMatchObject({ accessRole: 'editor', accessType: 'organizationPrivate' });

    // moving back out gives it back
    await update(org, [{ folderId: 'b', parentFolderId: 'a' }]);
    expect(await documentRole(t, org, 'member', 'doc')).toBe('editor');
    const back = await permissionsOf(t, org, ['sec-user'], { documentIds: ['doc'] });
    expect(back['sec-user']!.documents.doc).toMatchObject({ accessRole: 'editor', accessType: 'public' });
    expect(back['sec-user']!.documents.doc!.reasons).not.toContain('viewer through membership of folder "sec"');
  });

  it("moves a folder to the top level with parentFolderId 'root'", async () => {
    const org = await seed();
    await update(org, [{ folderId: 'b', parentFolderId: 'sec' }]);
    const res = await update(org, [{ folderId: 'c', parentFolderId: 'root' }]);
    expect(dataOf<Outcomes>(res)).toEqual({ c: { success: true, id: 'c', message: 'Folder Updated.' } });
    expect(shape(await tree(org))).toEqual({ a: {}, bb: {}, c: { d: { e: {} }, y: { y1: {} } }, sec: { b: { x: {} } } });
    const p = await places(org);
    expect(p).toMatchObject({
      c: ['root', 'public', true],
      d: ['root/c', 'public', true],
      e: ['root/c/d', 'public', true],
      y: ['root/c', 'organizationPrivate', false],
      y1: ['root/c/y', 'organizationPrivate', true],
      b: ['root/sec', 'restricted', true],
    });
    expect(await one(org, 'c')).toMatchObject({ parentFolderId: 'root' });
    expect(await documentRole(t, org, 'member', 'doc')).toBe('editor');
    // already at the top: nothing to do, still a success
    expect(dataOf<Outcomes>(await update(org, [{ folderId: 'c', parentFolderId: 'root' }])).c).toEqual({ success: true, id: 'c', message: 'Folder Updated.' });
    expect(await places(org)).toEqual(p);
  });

  it('refuses a move into itself or into a descendant per item, changing nothing', async () => {
    const org = await seed();
    const treeBefore = await tree(org);
    const res = await update(org, [
      { folderId: 'b', parentFolderId: 'b', folderName: 'Self' },
      { folderId: 'a', parentFolderId: 'e', folderName: 'Deep' },
      { folderId: 'c', parentFolderId: 'y1' },
    ]);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Folder Updated successfully.',
      data: {
        b: { success: false, id: 'b', message: CYCLE },
        a: { success: false, id: 'a', message: CYCLE },
        c: { success: false, id: 'c', message: CYCLE },
      },
    });
    // not even the rename of a refused item is applied
    expect(await tree(org)).toEqual(treeBefore);
  });

  it('moves a folder into a sibling whose id merely starts like its own (not a subfolder)', async () => {
    const org = await seed();
    const res = await update(org, [{ folderId: 'b', parentFolderId: 'bb' }]);
    expect(dataOf<Outcomes>(res).b).toEqual({ success: true, id: 'b', message: 'Folder Updated.' });
    expect(shape(await tree(org))).toEqual({ a: {}, bb: { b: { c: { d: { e: {} }, y: { y1: {} } }, x: {} } }, sec: {} });
    expect((await one(org, 'e')).ancestors).toEqual(['root', 'bb', 'b', 'c', 'd']);
    // and bb into b is no cycle either
    expect(
      dataOf<Outcomes>(
        await update(org, [
          { folderId: 'bb', parentFolderId: 'sec' },
          { folderId: 'b', parentFolderId: 'root' },
          { folderId: 'bb', parentFolderId: 'x' },
        ]),
      ),
    ).toEqual({
      bb: { success: true, id: 'bb', message: 'Folder Updated.' },
      b: { success: true, id: 'b', message: 'Folder Updated.' },
    });
    expect((await one(org, 'bb')).ancestors).toEqual(['root', 'b', 'x']);
  });

  it('reports an unknown parent and an unknown folder per item, applying the valid items', async () => {
    const org = await seed();
    await t.callK('/v2/organizations/folders/add', { organizationId: 'elsewhere', createOrganization: true, folders: [{ folderId: 'foreign' }] });
    const treeBefore = await tree(org);
    const res = await update(org, [
      { folderId: 'c', parentFolderId: 'nope', folderName: 'Not applied' },
      { folderId: 'd', parentFolderId: 'foreign' },
      { folderId: 'ghost', folderName: 'x' },
      { folderId: 'ghost-2', parentFolderId: 'a' },
      { folderId: 'a', folderName: 'Renamed' },
    ]);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({
      c: { success: false, id: 'c', message: 'Parent folder does not exist.' },
      d: { success: false, id: 'd', message: 'Parent folder does not exist.' },
      ghost: { success: false, id: 'ghost', message: 'Folder does not exist.' },
      'ghost-2': { success: false, id: 'ghost-2', message: 'Folder does not exist.' },
      a: { success: true, id: 'a', message: 'Folder Updated.' },
    });
    const after = await tree(org);
    expect(flatten(after).find((f) => f.folderId === 'a')!.folderName).toBe('Renamed');
    const strip = (nodes: FolderNode[]) =>
      flatten(nodes)
        .filter((f) => f.folderId !== 'a')
        .map(({ folderId, folderName, ancestors, accessType }) => ({ folderId, folderName, ancestors, accessType }));
    expect(strip(after)).toEqual(strip(treeBefore));
    // an unknown organization has no folders
    expect(dataOf<Outcomes>(await update('no-such-org', [{ folderId: 'a', folderName: 'x' }])).a).toEqual({
      success: false,
      id: 'a',
      message: 'Folder does not exist.',
    });
  });

  it('validates the input', async () => {
    const bad = async (data: unknown, message: string) => {
      const res = await t.callK(PATH, data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    };
    await bad({ folders: [{ folderId: 'a' }] }, 'organizationId is required.');
    await bad({ organizationId: 'x' }, 'folders is required.');
    await bad({ organizationId: 'x', folders: [] }, 'folders must have at least 1 item(s).');
    await bad({ organizationId: 'x', folders: [{ folderName: 'x' }] }, 'folders[0].folderId is required.');
    await bad(
      { organizationId: 'x', folders: [{ folderId: 'a' }, { folderId: 'root', folderName: 'Top' }] },
      'folders[1].folderId must not be "root" (the name of the top level).',
    );
    await bad({ organizationId: 'x', folders: [{ folderId: 'a', parentFolderId: 5 }] }, 'folders[0].parentFolderId must be a string, not a number.');
  });

  it("keeps API keys apart: another key can neither rename nor move this key's folders", async () => {
    const org = await seed();
    const before = await tree(org);
    const other = await createWorkspace(t);
    const res = await update(
      org,
      [
        { folderId: 'a', folderName: 'Hijacked' },
        { folderId: 'b', parentFolderId: 'root' },
      ],
      other.headersK,
    );
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({
      a: { success: false, id: 'a', message: 'Folder does not exist.' },
      b: { success: false, id: 'b', message: 'Folder does not exist.' },
    });
    // its own folders with the same ids move under it alone
    await t.callPublic(
      '/v2/organizations/folders/add',
      { organizationId: org, createOrganization: true, folders: [{ folderId: 'sec' }, { folderId: 'b' }] },
      other.headersK,
    );
    expect(dataOf<Outcomes>(await update(org, [{ folderId: 'b', parentFolderId: 'sec', folderName: 'Theirs' }], other.headersK)).b!.success).toBe(true);
    expect(shape(await tree(org, other.headersK))).toEqual({ sec: { b: {} } });
    expect(await tree(org)).toEqual(before);
  });
});
