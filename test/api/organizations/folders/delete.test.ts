import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const PATH = '/v2/organizations/folders/delete';

/** A folder as /v2/organizations/folders/get answers it (the fields these tests read), with its subfolders nested. */
interface FolderNode {
  folderId: string;
  subFolders?: FolderNode[];
}
let orgCount = 0;

/**
 * A fresh organization per test:
 *   a (restricted) → b → c ; a → a2
 *   ab (an id that starts like a's) ; keep
 * Documents (restricted): "in-a" in a, "in-b" in b, "in-c" in c, "in-ab" in ab, "kept" in keep, "loose" at the top.
 * Users: "fm" member of folder a, "bm" member of folder b, "dm" member of document in-c, "km" member of folder keep.
 */
async function seed() {
  const org = `org-${++orgCount}`;
  await t.callK('/v2/organizations/folders/add', {
    organizationId: org,
    createOrganization: true,
    folders: [
      { folderId: 'a', accessType: 'restricted' },
      { folderId: 'b', parentFolderId: 'a' },
      { folderId: 'c', parentFolderId: 'b' },
      { folderId: 'a2', parentFolderId: 'a' },
      { folderId: 'ab' },
      { folderId: 'keep' },
    ],
  });
  for (const [folderId, documentId] of [
    ['a', 'in-a'],
    ['b', 'in-b'],
    ['c', 'in-c'],
    ['ab', 'in-ab'],
    ['keep', 'kept'],
  ] as const) {
    const res = await t.callK('/v2/organizations/documents/add', { organizationId: org, folderId, documents: [{ documentId, accessType: 'restricted' }] });
    expect(res.status).toBe(200);
  }
  await t.callK('/v2/organizations/documents/add', { organizationId: org, documents: [{ documentId: 'loose', accessType: 'restricted' }] });
  await t.callK('/v2/users/add', { organizationId: org, folderId: 'a', users: [{ userId: 'fm' }] });
  await t.callK('/v2/users/add', { organizationId: org, folderId: 'b', users: [{ userId: 'bm' }] });
  await t.callK('/v2/users/add', { organizationId: org, documentId: 'in-c', users: [{ userId: 'dm' }] });
  await t.callK('/v2/users/add', { organizationId: org, folderId: 'keep', users: [{ userId: 'km' }] });
  return org;
}

const del = (organizationId: string, folderId: string, headers?: Record<string, string>) => t.callK(PATH, { organizationId, folderId }, headers);
const shape = (nodes: FolderNode[]): Record<string, unknown> => Object.fromEntries(nodes.map((n) => [n.folderId, n.subFolders ? shape(n.subFolders) : {}]));
const tree = async (organizationId: string, headers?: Record<string, string>) =>
  shape(dataOf<FolderNode[]>(await t.callK('/v2/organizations/folders/get', { organizationId }, headers)));
const docStatus = async (organizationId: string, documentId: string) =>
  (await t.callK('/v2/organizations/documents/get', { organizationId, documentIds: [documentId] })).status;

describe('/v2/organizations/folders/delete', () => {
  it('deletes the folder with its subfolders, answering data null', async () => {
    const org = await seed();
    expect(await tree(org)).toEqual({ a: { a2: {}, b: { c: {} } }, ab: {}, keep: {} });
    const res = await del(org, 'a');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'Folder deletion initiated successfully.', data: null } });
    // the folder id that only starts like a's stays
    expect(await tree(org)).toEqual({ ab: {}, keep: {} });
    for (const folderId of ['a', 'b', 'c', 'a2']) {
      const res = await t.callK('/v2/organizations/folders/get', { organizationId: org, folderId });
      expect(res.status).toBe(404);
      expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    }
  });

  it('deletes the documents in the folder and every subfolder: documents/get by ids then answers NOT_FOUND', async () => {
    const org = await seed();
    await del(org, 'a');
    for (const documentId of ['in-a', 'in-b', 'in-c']) {
      const res = await t.callK('/v2/organizations/documents/get', { organizationId: org, documentIds: [documentId] });
      expect(res.status).toBe(404);
      expect(errorOf(res)).toMatchObject({ status: 'NOT_FOUND', message: 'Error retrieving document(s).' });
      expect(errorOf(res).details).toEqual([{ id: documentId, success: false, message: 'Document does not exist', code: 'not-found' }]);
    }
    // documents elsewhere stay
    const rest = await t.callK('/v2/organizations/documents/get', { organizationId: org, documentIds: ['in-ab', 'kept', 'loose'] });
    expect(rest.status).toBe(200);
    expect(dataOf<Array<{ id: string }>>(rest).map((d) => d.id)).toEqual(['in-ab', 'kept', 'loose']);
    const listed = await t.callK('/v2/organizations/documents/get', { organizationId: org });
    expect(
      dataOf<Array<{ id: string }>>(listed)
        .map((d) => d.id)
        .sort(),
    ).toEqual(['in-ab', 'kept', 'loose']);
  });

  it('deletes the folder memberships and the memberships of the deleted documents', async () => {
    const org = await seed();
    expect(await documentRole(t, org, 'fm', 'in-c')).toBe('editor');
    expect(await documentRole(t, org, 'bm', 'in-c')).toBe('editor');
    expect(await documentRole(t, org, 'dm', 'in-c')).toBe('editor');
    await del(org, 'a');
    // folders and a document re-created with the same ids start without the old memberships
    await t.callK('/v2/organizations/folders/add', {
      organizationId: org,
      folders: [
        { folderId: 'a', accessType: 'restricted' },
        { folderId: 'b', parentFolderId: 'a' },
        { folderId: 'c', parentFolderId: 'b' },
      ],
    });
    await t.callK('/v2/organizations/documents/add', { organizationId: org, folderId: 'c', documents: [{ documentId: 'in-c', accessType: 'restricted' }] });
    const after = await permissionsOf(t, org, ['fm', 'bm', 'dm', 'km'], { folderIds: ['a', 'b', 'c', 'keep'], documentIds: ['in-c', 'kept'] });
    expect(after.fm!.folders.a!.errorCode).toBe('permission_denied');
    expect(after.fm!.documents['in-c']!.errorCode).toBe('permission_denied');
    // including the memberships of subfolders
    expect(after.bm!.folders.b!.errorCode).toBe('permission_denied');
    expect(after.bm!.documents['in-c']!.errorCode).toBe('permission_denied');
    expect(after.dm!.documents['in-c']!.errorCode).toBe('permission_denied');
    // memberships elsewhere stay
    expect(after.km!.folders.keep).toMatchObject({ accessRole: 'editor' });
    expect(after.km!.documents.kept).toMatchObject({ accessRole: 'editor', accessType: 'restricted' });
  });

  it('deletes a subfolder alone, leaving its parent and siblings', async () => {
    const org = await seed();
    const res = await del(org, 'b');
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Folder deletion initiated successfully.', data: null });
    expect(await tree(org)).toEqual({ a: { a2: {} }, ab: {}, keep: {} });
    expect(await docStatus(org, 'in-b')).toBe(404);
    expect(await docStatus(org, 'in-c')).toBe(404);
    expect(await docStatus(org, 'in-a')).toBe(200);
    expect(await documentRole(t, org, 'fm', 'in-a')).toBe('editor');
  });

  it("answers NOT_FOUND 'Folder not found.' for an unknown folder, changing nothing", async () => {
    const org = await seed();
    await t.callK('/v2/organizations/folders/add', { organizationId: 'elsewhere', createOrganization: true, folders: [{ folderId: 'foreign' }] });
    for (const [organizationId, folderId] of [
      [org, 'ghost'],
      [org, 'foreign'],
      ['no-such-org', 'a'],
      [org, 'root'],
    ] as const) {
      const res = await del(organizationId, folderId);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { status: 'NOT_FOUND', message: 'Folder not found.' } });
    }
    // deleting twice: the second time the folder is gone
    expect((await del(org, 'c')).status).toBe(200);
    expect(errorOf(await del(org, 'c'))).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    expect(await tree(org)).toEqual({ a: { a2: {}, b: {} }, ab: {}, keep: {} });
    expect(await tree('elsewhere')).toEqual({ foreign: {} });
  });

  it('validates the input', async () => {
    const bad = async (data: unknown, message: string) => {
      const res = await t.callK(PATH, data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    };
    await bad({ organizationId: 'x' }, 'folderId is required.');
    await bad({ folderId: 'a' }, 'organizationId is required.');
    await bad({ organizationId: 'x', folderId: ['a'] }, 'folderId must be a string, not an array.');
  });

  it("keeps API keys apart: another key can neither delete nor see this key's folders", async () => {
    const org = await seed();
    const other = await createWorkspace(t);
    const res = await del(org, 'a', other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    // deleting its own folder with the same id removes only its own
    await t.callPublic(
      '/v2/organizations/folders/add',
      { organizationId: org, createOrganization: true, folders: [{ folderId: 'a' }, { folderId: 'b', parentFolderId: 'a' }] },
      other.headersK,
    );
    expect((await del(org, 'a', other.headersK)).status).toBe(200);
    expect(await tree(org, other.headersK)).toEqual({});
    expect(await tree(org)).toEqual({ a: { a2: {}, b: { c: {} } }, ab: {}, keep: {} });
    expect(await docStatus(org, 'in-c')).toBe(200);
    expect(await documentRole(t, org, 'fm', 'in-c')).toBe('editor');
  });
});
