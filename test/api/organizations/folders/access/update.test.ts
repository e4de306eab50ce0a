import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../../helpers/access.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import type { describeFolder } from '../../../../../server/services/folders.ts';
import type { Outcomes } from '../../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

/** A folder as /v2/organizations/folders/get answers it, with its subfolders nested. */
type FolderNode = ReturnType<typeof describeFolder> & { subFolders?: FolderNode[] };

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const PATH = '/v2/organizations/folders/access/update';
let orgCount = 0;

/**
 * A fresh organization per test:
 *   p → q → r (own: organizationPrivate) → s
 *       q → q2 → q3
 *   solo
 * Documents (public): "qdoc" in q3, "sdoc" in s. User "member" at organization level.
 */
async function seed() {
  const org = `org-${++orgCount}`;
  await t.callK('/v2/organizations/folders/add', {
    organizationId: org,
    createOrganization: true,
    folders: [
      { folderId: 'p' },
      { folderId: 'q', parentFolderId: 'p' },
      { folderId: 'r', parentFolderId: 'q', accessType: 'organizationPrivate' },
      { folderId: 's', parentFolderId: 'r' },
      { folderId: 'q2', parentFolderId: 'q' },
      { folderId: 'q3', parentFolderId: 'q2' },
      { folderId: 'solo' },
    ],
  });
  await t.callK('/v2/organizations/documents/add', { organizationId: org, folderId: 'q3', documents: [{ documentId: 'qdoc', accessType: 'public' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: org, folderId: 's', documents: [{ documentId: 'sdoc', accessType: 'public' }] });
  await t.callK('/v2/users/add', { organizationId: org, users: [{ userId: 'member' }] });
  return org;
}

const access = (data: unknown, headers?: Record<string, string>) => t.callK(PATH, data, headers);
const flatten = (nodes: FolderNode[]): FolderNode[] => nodes.flatMap((n) => [n, ...flatten(n.subFolders ?? [])]);
/** `{ id: [accessType, inheritAccessFromParent] }` for every folder, as folders/get reports it. */
const accessOf = async (organizationId: string, headers?: Record<string, string>) => {
  const res = await t.callK('/v2/organizations/folders/get', { organizationId }, headers);
  return Object.fromEntries(flatten(dataOf<FolderNode[]>(res)).map((f) => [f.folderId, [f.accessType, f.inheritAccessFromParent]]));
};
const INITIAL = {
  p: ['public', true],
  q: ['public', true],
  r: ['organizationPrivate', false],
  s: ['organizationPrivate', true],
  q2: ['public', true],
  q3: ['public', true],
  solo: ['public', true],
};

describe('/v2/organizations/folders/access/update', () => {
  it('sets an access type: the folder stops inheriting, inheriting subfolders at every depth follow, others keep theirs', async () => {
    const org = await seed();
    expect(await accessOf(org)).toEqual(INITIAL);
    const res = await access({ organizationId: org, folderIds: ['p'], accessType: 'restricted' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated access for folders successfully.',
      data: { p: { success: true, id: 'p', message: 'Folder access updated.' } },
    });
    expect(await accessOf(org)).toEqual({
      ...INITIAL,
      p: ['restricted', false],
      q: ['restricted', true],
      q2: ['restricted', true],
      q3: ['restricted', true],
      // r has its own type, and s below it follows r
      r: ['organizationPrivate', false],
      s: ['organizationPrivate', true],
    });
  });

  it('changes what documents in the subtree allow (through /v2/auth/permissions/get)', async () => {
    const org = await seed();
    expect(await documentRole(t, org, 'member', 'qdoc')).toBe('editor');
    await access({ organizationId: org, folderIds: ['p'], accessType: 'restricted' });
    const restricted = await permissionsOf(t, org, ['member'], { documentIds: ['qdoc', 'sdoc'], folderIds: ['q3', 'p'] });
    expect(restricted.member!.documents.qdoc!.errorCode).toBe('permission_denied');
    expect(restricted.member!.documents.qdoc!.reasons).toContain('the document is public, but its folder "q3" makes it restricted');
    expect(restricted.member!.folders.p!.errorCode).toBe('permission_denied');
    // sdoc's folder chain stops at r (organizationPrivate): the organization member keeps it
    expect(restricted.member!.documents.sdoc).toMatchObject({ accessRole: 'editor', accessType: 'organizationPrivate' });

    await access({ organizationId: org, folderIds: ['p'], accessType: 'public' });
    expect(await documentRole(t, org, 'member', 'qdoc')).toBe('editor');
    expect((await permissionsOf(t, org, ['member'], { documentIds: ['qdoc'] })).member!.documents.qdoc!.accessType).toBe('public');
  });

  it("inheritFromParent true resets a folder to its parent's value (and the top level to public)", async () => {
    const org = await seed();
    await access({ organizationId: org, folderIds: ['p'], accessType: 'restricted' });
    const res = await access({ organizationId: org, folderIds: ['r'], inheritFromParent: true });
    expect(dataOf<Outcomes>(res)).toEqual({ r: { success: true, id: 'r', message: 'Folder access updated.' } });
    let now = await accessOf(org);
    expect(now.r).toEqual(['restricted', true]);
    expect(now.s).toEqual(['restricted', true]);
    expect(await documentRole(t, org, 'member', 'sdoc')).toBeNull();

    // the top level inherits no restriction
    await access({ organizationId: org, folderIds: ['p'], inheritFromParent: true });
    expect(await accessOf(org)).toEqual({ ...INITIAL, r: ['public', true], s: ['public', true] });
    expect(await documentRole(t, org, 'member', 'sdoc')).toBe('editor');

    // a folder that stopped inheriting follows its parent again once it inherits
    await access({ organizationId: org, folderIds: ['q2'], accessType: 'organizationPrivate' });
    await access({ organizationId: org, folderIds: ['q'], accessType: 'restricted' });
    now = await accessOf(org);
    expect(now.q2).toEqual(['organizationPrivate', false]);
    expect(now.q3).toEqual(['organizationPrivate', true]);
    await access({ organizationId: org, folderIds: ['q2'], inheritFromParent: true });
    now = await accessOf(org);
    expect(now.q2).toEqual(['restricted', true]);
    expect(now.q3).toEqual(['restricted', true]);
  });

  it('inheritFromParent false with an accessType sets the folder’s own type', async () => {
    const org = await seed();
    await access({ organizationId: org, folderIds: ['q2'], inheritFromParent: false, accessType: 'organizationPrivate' });
    await access({ organizationId: org, folderIds: ['p'], accessType: 'public' });
    const now = await accessOf(org);
    expect(now.q2).toEqual(['organizationPrivate', false]);
    expect(now.q3).toEqual(['organizationPrivate', true]);
    expect(now.q).toEqual(['public', true]);
  });

  it('inheritFromParent true wins over an accessType sent with it', async () => {
    const org = await seed();
    await access({ organizationId: org, folderIds: ['q'], accessType: 'restricted' });
    const res = await access({ organizationId: org, folderIds: ['q2'], inheritFromParent: true, accessType: 'organizationPrivate' });
    expect(dataOf<Outcomes>(res).q2).toEqual({ success: true, id: 'q2', message: 'Folder access updated.' });
    const now = await accessOf(org);
    expect(now.q2).toEqual(['restricted', true]);
    expect(now.q3).toEqual(['restricted', true]);
  });

  it('updates several folders in one request, reporting an unknown folder per item', async () => {
    const org = await seed();
    await t.callK('/v2/organizations/folders/add', { organizationId: 'elsewhere', createOrganization: true, folders: [{ folderId: 'foreign' }] });
    const res = await access({ organizationId: org, folderIds: ['solo', 'ghost', 'q2', 'foreign'], accessType: 'restricted' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated access for folders successfully.',
      data: {
        solo: { success: true, id: 'solo', message: 'Folder access updated.' },
        ghost: { success: false, id: 'ghost', message: 'Folder does not exist.' },
        q2: { success: true, id: 'q2', message: 'Folder access updated.' },
        foreign: { success: false, id: 'foreign', message: 'Folder does not exist.' },
      },
    });
    expect(await accessOf(org)).toEqual({ ...INITIAL, solo: ['restricted', false], q2: ['restricted', false], q3: ['restricted', true] });
    expect(await accessOf('elsewhere')).toEqual({ foreign: ['public', true] });
    // an unknown organization has no folders
    expect(dataOf<Outcomes>(await access({ organizationId: 'no-such-org', folderIds: ['p'], accessType: 'public' })).p).toEqual({
      success: false,
      id: 'p',
      message: 'Folder does not exist.',
    });
  });

  it('refuses a request without accessType or inheritFromParent, and inheritFromParent false without accessType, changing nothing', async () => {
    const org = await seed();
    const neither = await access({ organizationId: org, folderIds: ['p'] });
    expect(neither.status).toBe(400);
    expect(errorOf(neither)).toEqual({ status: 'INVALID_ARGUMENT', message: 'At least one of accessType or inheritFromParent must be provided.' });
    await access({ organizationId: org, folderIds: ['q'], accessType: 'restricted' });
    const falseAlone = await access({ organizationId: org, folderIds: ['q'], inheritFromParent: false });
    expect(falseAlone.status).toBe(400);
    expect(errorOf(falseAlone)).toEqual({ status: 'INVALID_ARGUMENT', message: 'accessType is required when inheritFromParent is false.' });
    expect((await accessOf(org)).q).toEqual(['restricted', false]);
  });

  it('validates the rest of the input', async () => {
    const bad = async (data: unknown, message: string) => {
      const res = await access(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    };
    await bad({ folderIds: ['p'], accessType: 'public' }, 'organizationId is required.');
    await bad({ organizationId: 'x', accessType: 'public' }, 'folderIds is required.');
    await bad({ organizationId: 'x', folderIds: [], accessType: 'public' }, 'folderIds must have at least 1 item(s).');
    await bad({ organizationId: 'x', folderIds: ['p'], accessType: 'secret' }, 'accessType must be one of: public, restricted, organizationPrivate.');
    await bad({ organizationId: 'x', folderIds: ['p'], inheritFromParent: 'yes' }, 'inheritFromParent must be a boolean, not a string.');
  });

  it("keeps API keys apart: another key cannot change this key's folders", async () => {
    const org = await seed();
    const other = await createWorkspace(t);
    const res = await access({ organizationId: org, folderIds: ['p', 'q'], accessType: 'restricted' }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({
      p: { success: false, id: 'p', message: 'Folder does not exist.' },
      q: { success: false, id: 'q', message: 'Folder does not exist.' },
    });
    // its own folder with the same id changes under it alone
    await t.callPublic('/v2/organizations/folders/add', { organizationId: org, createOrganization: true, folders: [{ folderId: 'p' }] }, other.headersK);
    expect(dataOf<Outcomes>(await access({ organizationId: org, folderIds: ['p'], accessType: 'restricted' }, other.headersK)).p!.success).toBe(true);
    expect(await accessOf(org, other.headersK)).toEqual({ p: ['restricted', false] });
    expect(await accessOf(org)).toEqual(INITIAL);
    expect(await documentRole(t, org, 'member', 'qdoc')).toBe('editor');
  });
});
