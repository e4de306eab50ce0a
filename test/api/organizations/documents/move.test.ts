import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const path = '/v2/organizations/documents/move';

/** A document as /v2/organizations/documents/get answers it (the fields these tests read). */
interface DocumentItem {
  id: string;
  folderId: string;
}

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [{ folderId: 'team' }, { folderId: 'sub', parentFolderId: 'team' }, { folderId: 'locked', accessType: 'restricted' }],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    documents: [{ documentId: 'd1', accessType: 'restricted' }, { documentId: 'd2', accessType: 'restricted' }, { documentId: 'd3' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'team', users: [{ userId: 'teammate' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-member' }] });
  await t.callPublic('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'theirs' }] }, other.headersK);
});
afterAll(() => t.close());

const move = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const foldersOf = async (ids: string[]) =>
  dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ids })).map((d) => d.folderId);
const listedIn = async (folderId: string) =>
  dataOf<DocumentItem[]>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', folderId })).map((d) => d.id);

describe('/v2/organizations/documents/move', () => {
  it("moves documents into a folder, where the folder's members gain access, and back to root", async () => {
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBeNull();
    const res = await move({ organizationId: 'acme', documentIds: ['d1', 'd2'], folderId: 'team' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ status: 'success', message: 'Documents moved successfully.' });
    expect(await foldersOf(['d1', 'd2', 'd3'])).toEqual(['team', 'team', 'root']);
    expect(await listedIn('team')).toEqual(['d1', 'd2']);
    const perms = await permissionsOf(t, 'acme', ['teammate'], { documentIds: ['d1'] });
    expect(perms.teammate!.documents.d1).toEqual({ accessRole: 'editor', accessType: 'restricted', reasons: ['editor through membership of folder "team"'] });

    const back = await move({ organizationId: 'acme', documentIds: ['d1'], folderId: 'root' });
    expect(resultOf(back)).toEqual({ status: 'success', message: 'Documents moved successfully.' });
    expect(await foldersOf(['d1', 'd2'])).toEqual(['root', 'team']);
    expect(await listedIn('root')).toEqual(['d1', 'd3']);
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBeNull();
    expect(await documentRole(t, 'acme', 'teammate', 'd2')).toBe('editor');
  });

  it('grants access through ancestor folders when moved into a subfolder', async () => {
    await move({ organizationId: 'acme', documentIds: ['d1'], folderId: 'sub' });
    expect(await foldersOf(['d1'])).toEqual(['sub']);
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBe('editor');
    await move({ organizationId: 'acme', documentIds: ['d1'], folderId: 'root' });
    expect(await documentRole(t, 'acme', 'teammate', 'd1')).toBeNull();
  });

  it("takes on a restricted folder's access type: organization members lose access", async () => {
    expect(await permissionsOf(t, 'acme', ['org-member'], { documentIds: ['d3'] })).toMatchObject({
      'org-member': { documents: { d3: { accessRole: 'editor', accessType: 'public' } } },
    });
    await move({ organizationId: 'acme', documentIds: ['d3'], folderId: 'locked' });
    const perms = await permissionsOf(t, 'acme', ['org-member'], { documentIds: ['d3'] });
    expect(perms['org-member']!.documents.d3).toMatchObject({ errorCode: 'permission_denied' });
    await move({ organizationId: 'acme', documentIds: ['d3'], folderId: 'root' });
    expect(await documentRole(t, 'acme', 'org-member', 'd3')).toBe('editor');
  });

  it('answers NOT_FOUND for an unknown folder and moves nothing', async () => {
    const res = await move({ organizationId: 'acme', documentIds: ['d1'], folderId: 'nope' });
    expect(res.status).toBe(404);
    // move has no createFolder flag, so the message does not suggest one
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Folder does not exist: nope.' });
    expect(await foldersOf(['d1'])).toEqual(['root']);
  });

  it('is all or nothing on an unknown document: 404 with per-id details, nothing moves', async () => {
    const res = await move({ organizationId: 'acme', documentIds: ['d1', 'ghost'], folderId: 'team' });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({
      status: 'NOT_FOUND',
      message: 'Error moving document(s).',
      details: {
        d1: { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' },
        ghost: { success: false, code: 'not-found', message: 'Document does not exist' },
      },
    });
    expect(await foldersOf(['d1'])).toEqual(['root']);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ documentIds: ['d1'], folderId: 'team' }, 'organizationId is required.'],
      [{ organizationId: 'acme', documentIds: ['d1'] }, 'folderId is required.'],
      [{ organizationId: 'acme', documentIds: ['d1'], folderId: '' }, 'folderId must not be empty.'],
      [{ organizationId: 'acme', folderId: 'team' }, 'documentIds is required.'],
      [{ organizationId: 'acme', documentIds: [], folderId: 'team' }, 'documentIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', documentIds: [' '], folderId: 'team' }, 'documentIds[0] must not be empty.'],
    ];
    for (const [data, message] of cases) {
      const res = await move(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    }
    expect(await foldersOf(['d1'])).toEqual(['root']);
  });

  it('keeps API keys apart', async () => {
    // our folder does not exist for another key, nor do our documents
    const intoOurs = await t.callPublic(path, { organizationId: 'acme', documentIds: ['d1'], folderId: 'team' }, other.headersK);
    expect(intoOurs.status).toBe(404);
    expect(errorOf(intoOurs)).toEqual({ status: 'NOT_FOUND', message: 'Folder does not exist: team.' });
    const intoTheirs = await t.callPublic(path, { organizationId: 'acme', documentIds: ['d1'], folderId: 'theirs' }, other.headersK);
    expect(intoTheirs.status).toBe(404);
    expect(errorOf(intoTheirs).details).toEqual({ d1: { success: false, code: 'not-found', message: 'Document does not exist' } });
    // and their folder does not exist for us
    expect(errorOf(await move({ organizationId: 'acme', documentIds: ['d1'], folderId: 'theirs' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Folder does not exist: theirs.',
    });
    expect(await foldersOf(['d1'])).toEqual(['root']);
  });
});
