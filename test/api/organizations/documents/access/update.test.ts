import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../../helpers/access.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import type { Outcomes } from '../../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';

const path = '/v2/organizations/documents/access/update';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [
      { documentId: 'd', accessType: 'organizationPrivate' },
      { documentId: 'untouched', accessType: 'organizationPrivate' },
    ],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    folderId: 'team',
    createFolder: true,
    documents: [{ documentId: 'in-folder', accessType: 'organizationPrivate' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-member' }] });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    documentId: 'd',
    users: [{ userId: 'doc-editor' }, { userId: 'doc-viewer', accessRole: 'viewer' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'team', users: [{ userId: 'folder-member' }] });
  await t.callPublic(
    '/v2/organizations/documents/add',
    { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd', accessType: 'restricted' }] },
    other.headersK,
  );
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(path, data, headers);
const accessTypeOf = async (id: string, headers?: Record<string, string>) =>
  dataOf<Array<{ accessType: string }>>(await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [id] }, headers))[0]!
    .accessType;
const roles = async (documentId: string) => {
  const users = ['org-member', 'doc-editor', 'doc-viewer', 'folder-member', 'stranger'];
  const data = await permissionsOf(t, 'acme', users, { documentIds: [documentId] });
  return Object.fromEntries(users.map((u) => [u, (data[u]!.documents[documentId]!.accessRole as string | undefined) ?? null]));
};

describe('/v2/organizations/documents/access/update', () => {
  it('organizationPrivate (the starting point) opens the document to organization and document members only', async () => {
    expect(await roles('d')).toEqual({ 'org-member': 'editor', 'doc-editor': 'editor', 'doc-viewer': 'viewer', 'folder-member': null, stranger: null });
  });

  it("restricted removes organization members' access but keeps document members'", async () => {
    const res = await update({ organizationId: 'acme', documentIds: ['d'], accessType: 'restricted' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated access for documents successfully.',
      data: { d: { success: true, id: 'd', message: 'Document access type updated.' } },
    });
    expect(await accessTypeOf('d')).toBe('restricted');
    expect(await roles('d')).toEqual({ 'org-member': null, 'doc-editor': 'editor', 'doc-viewer': 'viewer', 'folder-member': null, stranger: null });
    const perms = await permissionsOf(t, 'acme', ['org-member'], { documentIds: ['d'] });
    expect(perms['org-member']!.documents.d).toEqual({
      errorCode: 'permission_denied',
      reasons: ['organization membership does not apply: the document is restricted', 'no membership grants access'],
    });
    // the other document of the organization is unchanged
    expect(await accessTypeOf('untouched')).toBe('organizationPrivate');
    expect(await documentRole(t, 'acme', 'org-member', 'untouched')).toBe('editor');
  });

  it("restricted keeps folder members' access to a document in their folder", async () => {
    await update({ organizationId: 'acme', documentIds: ['in-folder'], accessType: 'restricted' });
    expect(await documentRole(t, 'acme', 'folder-member', 'in-folder')).toBe('editor');
    expect(await documentRole(t, 'acme', 'org-member', 'in-folder')).toBeNull();
  });

  it('public gives a user with no membership editor access; a viewer membership still says viewer', async () => {
    await update({ organizationId: 'acme', documentIds: ['d'], accessType: 'public' });
    expect(await accessTypeOf('d')).toBe('public');
    const perms = await permissionsOf(t, 'acme', ['stranger'], { documentIds: ['d'] });
    expect(perms.stranger!.documents.d).toEqual({
      accessRole: 'editor',
      accessType: 'public',
      reasons: ['editor: the document is public, open to every user of the API key'],
    });
    expect(await roles('d')).toEqual({ 'org-member': 'editor', 'doc-editor': 'editor', 'doc-viewer': 'viewer', 'folder-member': 'editor', stranger: 'editor' });
  });

  it('organizationPrivate closes it again to users without membership', async () => {
    await update({ organizationId: 'acme', documentIds: ['d'], accessType: 'organizationPrivate' });
    expect(await roles('d')).toEqual({ 'org-member': 'editor', 'doc-editor': 'editor', 'doc-viewer': 'viewer', 'folder-member': null, stranger: null });
  });

  it('reports an unknown id as success:false per item and still updates the others', async () => {
    const res = await update({ organizationId: 'acme', documentIds: ['ghost', 'untouched', 'untouched'], accessType: 'public' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Updated access for documents successfully.',
      data: {
        ghost: { success: false, id: 'ghost', message: 'Document does not exist' },
        untouched: { success: true, id: 'untouched', message: 'Document access type updated.' },
      },
    });
    expect(await accessTypeOf('untouched')).toBe('public');
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['ghost'] })).status).toBe(404);
    // in an unknown organization every id is unknown
    const noOrg = await update({ organizationId: 'nope', documentIds: ['d'], accessType: 'public' });
    expect(dataOf<Outcomes>(noOrg)).toEqual({ d: { success: false, id: 'd', message: 'Document does not exist' } });
  });

  it('validates the input: an invalid accessType is INVALID_ARGUMENT', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme', documentIds: ['d'], accessType: 'everyone' }, 'accessType must be one of: public, restricted, organizationPrivate.'],
      [{ organizationId: 'acme', documentIds: ['d'], accessType: 'PUBLIC' }, 'accessType must be one of: public, restricted, organizationPrivate.'],
      [{ organizationId: 'acme', documentIds: ['d'] }, 'accessType is required.'],
      [{ organizationId: 'acme', accessType: 'public' }, 'documentIds is required.'],
      [{ organizationId: 'acme', documentIds: [], accessType: 'public' }, 'documentIds must have at least 1 item(s).'],
      [{ documentIds: ['d'], accessType: 'public' }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await update(data);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    }
    expect(await accessTypeOf('d')).toBe('organizationPrivate');
  });

  it('keeps API keys apart', async () => {
    const res = await t.callPublic(path, { organizationId: 'acme', documentIds: ['in-folder'], accessType: 'public' }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)['in-folder']).toEqual({ success: false, id: 'in-folder', message: 'Document does not exist' });
    expect(await accessTypeOf('in-folder')).toBe('restricted');
    expect(await documentRole(t, 'acme', 'stranger', 'in-folder')).toBeNull();
    // their own d is a different document: changing it leaves ours, and the other way round
    expect(dataOf<Outcomes>(await t.callPublic(path, { organizationId: 'acme', documentIds: ['d'], accessType: 'public' }, other.headersK)).d!.success).toBe(
      true,
    );
    expect(await accessTypeOf('d')).toBe('organizationPrivate');
    await update({ organizationId: 'acme', documentIds: ['d'], accessType: 'restricted' });
    expect(await accessTypeOf('d', other.headersK)).toBe('public');
  });
});
