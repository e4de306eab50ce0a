import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserAccess } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [
      { folderId: 'eng', accessType: 'restricted' },
      { folderId: 'eng-web', parentFolderId: 'eng' },
    ],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    documents: [
      { documentId: 'memo', accessType: 'organizationPrivate' },
      { documentId: 'wiki', accessType: 'public' },
    ],
  });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'eng-web', documents: [{ documentId: 'spec', accessType: 'public' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-viewer', accessRole: 'viewer' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', folderId: 'eng', users: [{ userId: 'eng-editor' }] });
});
afterAll(() => t.close());

const get = (data: unknown, headers?: Record<string, string>) => t.callK('/v2/auth/permissions/get', data, headers);

describe('/v2/auth/permissions/get', () => {
  it("answers each user's effective access with the reasons", async () => {
    const res = await get({
      organizationId: 'acme',
      userIds: ['org-viewer', 'eng-editor', 'stranger'],
      folderIds: ['eng-web'],
      documentIds: ['memo', 'wiki', 'spec', 'missing'],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('User permissions retrieved successfully.');
    const { 'org-viewer': viewer, 'eng-editor': engineer, stranger } = dataOf<Record<'org-viewer' | 'eng-editor' | 'stranger', UserAccess>>(res);

    expect(viewer.organization.acme).toEqual({ accessRole: 'viewer', reasons: ['viewer through organization membership'] });
    expect(viewer.documents.memo).toEqual({ accessRole: 'viewer', accessType: 'organizationPrivate', reasons: ['viewer through organization membership'] });
    // a membership says viewer, even on a public document
    expect(viewer.documents.wiki!.accessRole).toBe('viewer');
    // spec is public, but its folder chain (eng-web inherits restricted from eng) makes it restricted
    expect(viewer.documents.spec).toEqual({
      errorCode: 'permission_denied',
      reasons: [
        'the document is public, but its folder "eng-web" makes it restricted',
        'organization membership does not apply: the document is restricted',
        'no membership grants access',
      ],
    });
    expect(viewer.folders['eng-web']!.errorCode).toBe('permission_denied');
    expect(viewer.documents.missing).toEqual({ errorCode: 'does_not_exist', reasons: ['the document does not exist'] });

    expect(engineer.documents.spec).toEqual({
      accessRole: 'editor',
      accessType: 'restricted',
      reasons: ['the document is public, but its folder "eng-web" makes it restricted', 'editor through membership of folder "eng"'],
    });
    expect(engineer.folders['eng-web']).toMatchObject({ accessRole: 'editor', accessType: 'restricted' });
    expect(engineer.organization.acme!.errorCode).toBe('permission_denied');

    expect(stranger.documents.wiki).toMatchObject({ accessRole: 'editor', accessType: 'public' });
    expect(stranger.documents.memo!.errorCode).toBe('permission_denied');
  });

  it('reports an unknown organization as does_not_exist', async () => {
    const res = await get({ organizationId: 'nope', userIds: ['org-viewer'], documentIds: ['memo'] });
    expect(dataOf<Record<string, UserAccess>>(res)['org-viewer']!.organization.nope!.errorCode).toBe('does_not_exist');
    expect(dataOf<Record<string, UserAccess>>(res)['org-viewer']!.documents.memo!.errorCode).toBe('does_not_exist');
  });

  it('validates the input', async () => {
    expect(errorOf(await get({ organizationId: 'acme' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'userIds is required.' });
    expect(errorOf(await get({ organizationId: 'acme', userIds: Array.from({ length: 101 }, (_, i) => `u${i}`) })).message).toBe(
      'userIds must have at most 100 item(s).',
    );
    expect(errorOf(await get({ organizationId: 'acme', userIds: ['a'], documentIds: [1] })).message).toBe('documentIds[0] must be a string, not a number.');
  });

  it("shows nothing of another API key's data", async () => {
    const other = await createWorkspace(t);
    const res = await get({ organizationId: 'acme', userIds: ['org-viewer'], documentIds: ['memo'] }, other.headersK);
    expect(dataOf<Record<string, UserAccess>>(res)['org-viewer']!.organization.acme!.errorCode).toBe('does_not_exist');
    expect(dataOf<Record<string, UserAccess>>(res)['org-viewer']!.documents.memo!.errorCode).toBe('does_not_exist');
  });
});
