import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { Outcomes } from '../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const path = '/v2/organizations/documents/delete';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'team' }] });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    documents: [
      { documentId: 'd1', accessType: 'restricted' },
      { documentId: 'd2' },
      { documentId: 'd3' },
      { documentId: 'd4' },
      { documentId: 'shared', accessType: 'organizationPrivate' },
    ],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    folderId: 'team',
    documents: [{ documentId: 'in-team', accessType: 'restricted' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd1', users: [{ userId: 'doc-member', accessRole: 'viewer' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'shared', users: [{ userId: 'doc-member' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-member' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'team', users: [{ userId: 'folder-member' }] });
  // the same ids under another API key
  await t.callPublic(
    '/v2/organizations/documents/add',
    { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1' }, { documentId: 'd2' }] },
    other.headersK,
  );
});
afterAll(() => t.close());

const del = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const exists = async (documentId: string, headers?: Record<string, string>) =>
  (await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [documentId] }, headers)).status === 200;
const readd = (documents: Array<Record<string, unknown>>, folderId?: string) =>
  t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId, documents });

describe('/v2/organizations/documents/delete', () => {
  it('deletes documents, with per-id outcomes; the others stay', async () => {
    const res = await del({ organizationId: 'acme', documentIds: ['d3', 'd4'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Document(s) deleted successfully.',
      data: {
        d3: { success: true, id: 'd3', message: 'Deleted Successfully' },
        d4: { success: true, id: 'd4', message: 'Deleted Successfully' },
      },
    });
    expect(await exists('d3')).toBe(false);
    expect(await exists('d4')).toBe(false);
    expect(await exists('d2')).toBe(true);
    const listed = await t.callK('/v2/organizations/documents/get', { organizationId: 'acme' });
    expect(dataOf<Array<{ id: string }>>(listed).map((d) => d.id)).toEqual(['d1', 'd2', 'in-team', 'shared']);
  });

  it('removes document memberships: a user added at documentId has no access to a new document with the same id', async () => {
    const before = await permissionsOf(t, 'acme', ['doc-member', 'org-member'], { documentIds: ['d1', 'shared'] });
    expect(before['doc-member']!.documents.d1).toMatchObject({ accessRole: 'viewer', accessType: 'restricted' });
    expect(before['doc-member']!.documents.shared).toMatchObject({ accessRole: 'editor' });
    expect(before['org-member']!.documents.d1).toMatchObject({ errorCode: 'permission_denied' });

    expect((await del({ organizationId: 'acme', documentIds: ['d1', 'shared'] })).status).toBe(200);
    const gone = await permissionsOf(t, 'acme', ['doc-member'], { documentIds: ['d1'] });
    expect(gone['doc-member']!.documents.d1).toMatchObject({ errorCode: 'does_not_exist' });

    // re-created with the same ids: the old document memberships are not carried over
    expect(
      (
        await readd([
          { documentId: 'd1', accessType: 'restricted' },
          { documentId: 'shared', accessType: 'organizationPrivate' },
        ])
      ).status,
    ).toBe(200);
    const after = await permissionsOf(t, 'acme', ['doc-member', 'org-member'], { documentIds: ['d1', 'shared'] });
    expect(after['doc-member']!.documents.d1).toEqual({ errorCode: 'permission_denied', reasons: ['no membership grants access'] });
    expect(after['doc-member']!.documents.shared).toMatchObject({ errorCode: 'permission_denied' });
    // organization membership is not a document membership: it still counts where it applies
    expect(after['org-member']!.documents.shared).toMatchObject({ accessRole: 'editor', accessType: 'organizationPrivate' });
    expect(after['org-member']!.documents.d1).toMatchObject({ errorCode: 'permission_denied' });
  });

  it('keeps folder memberships: a document re-created in the folder is open to its members again', async () => {
    expect(await documentRole(t, 'acme', 'folder-member', 'in-team')).toBe('editor');
    expect((await del({ organizationId: 'acme', documentIds: ['in-team'] })).status).toBe(200);
    await readd([{ documentId: 'in-team', accessType: 'restricted' }], 'team');
    expect(await documentRole(t, 'acme', 'folder-member', 'in-team')).toBe('editor');
    expect(await documentRole(t, 'acme', 'org-member', 'in-team')).toBeNull();
  });

  it("removes the document's data: CRDT content and comments do not come back with a new document of the same id", async () => {
    await readd([{ documentId: 'with-data' }]);
    expect((await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'with-data', editorId: 'e1', type: 'text', data: 'hello' })).status).toBe(200);
    const annotation = await t.callK('/v2/commentannotations/add', {
      organizationId: 'acme',
      documentId: 'with-data',
      commentAnnotations: [{ commentData: [{ commentText: 'hi', from: { userId: 'org-member' } }] }],
    });
    expect(annotation.status).toBe(200);
    expect(dataOf<unknown[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'with-data' }))).toHaveLength(1);
    expect(dataOf<unknown[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', documentId: 'with-data' }))).toHaveLength(1);

    expect((await del({ organizationId: 'acme', documentIds: ['with-data'] })).status).toBe(200);
    await readd([{ documentId: 'with-data' }]);
    expect(dataOf<unknown[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'with-data' }))).toEqual([]);
    expect(dataOf<unknown[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', documentId: 'with-data' }))).toEqual([]);
  });

  it('is all or nothing: a missing id fails the call with 404 and per-id details, and nothing is deleted', async () => {
    const res = await del({ organizationId: 'acme', documentIds: ['d2', 'ghost'] });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({
      status: 'NOT_FOUND',
      message: 'Error deleting document(s).',
      details: {
        d2: { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' },
        ghost: { success: false, code: 'not-found', message: 'Document does not exist' },
      },
    });
    expect(await exists('d2')).toBe(true);

    const noOrg = await del({ organizationId: 'nope', documentIds: ['d2'] });
    expect(noOrg.status).toBe(404);
    expect(errorOf(noOrg).details).toEqual({ d2: { success: false, code: 'not-found', message: 'Document does not exist' } });
  });

  it('deletes a document listed twice once', async () => {
    await readd([{ documentId: 'twice' }]);
    const res = await del({ organizationId: 'acme', documentIds: ['twice', 'twice'] });
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({ twice: { success: true, id: 'twice', message: 'Deleted Successfully' } });
    expect(await exists('twice')).toBe(false);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ documentIds: ['d2'] }, 'organizationId is required.'],
      [{ organizationId: 'acme' }, 'documentIds is required.'],
      [{ organizationId: 'acme', documentIds: [] }, 'documentIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', documentIds: [''] }, 'documentIds[0] must not be empty.'],
      [{ organizationId: 'acme', documentIds: 'd2' }, 'documentIds must be an array, not a string.'],
    ];
    for (const [data, message] of cases) {
      const res = await del(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    }
    expect(await exists('d2')).toBe(true);
  });

  it('keeps API keys apart', async () => {
    // another key cannot delete ours: to it, d2 of ours does not exist, and deleting its own d2 leaves ours
    const foreign = await t.callPublic(path, { organizationId: 'acme', documentIds: ['in-team'] }, other.headersK);
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).details).toEqual({ 'in-team': { success: false, code: 'not-found', message: 'Document does not exist' } });
    expect(await exists('in-team')).toBe(true);

    expect((await t.callPublic(path, { organizationId: 'acme', documentIds: ['d2'] }, other.headersK)).status).toBe(200);
    expect(await exists('d2', other.headersK)).toBe(false);
    expect(await exists('d2')).toBe(true);
    // and ours deleting d1 leaves theirs
    expect((await del({ organizationId: 'acme', documentIds: ['d1'] })).status).toBe(200);
    expect(await exists('d1', other.headersK)).toBe(true);
  });
});
