import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf, type UserAccess } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** permissions/get by user id: the access of test/helpers/access.ts, and the context permissions as accessFields. */
type Permissions = Record<string, UserAccess & { context?: unknown }>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'f', accessType: 'restricted' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'd', accessType: 'restricted' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', folderId: 'f', documents: [{ documentId: 'in-f' }] });
});
afterAll(() => t.close());

const grant = (userId: string, resources: unknown[], headers?: Record<string, string>) =>
  t.callK('/v2/auth/permissions/add', { user: { userId }, permissions: { resources } }, headers);

describe('/v2/auth/permissions/add', () => {
  it('grants roles on a document, a folder and an organization (default editor)', async () => {
    const res = await grant('pat', [
      { type: 'document', id: 'd', organizationId: 'acme', accessRole: 'viewer' },
      { type: 'folder', id: 'f', organizationId: 'acme' },
      { type: 'organization', id: 'acme', accessRole: 'viewer' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'Permissions added successfully.' } });
    const data = await permissionsOf(t, 'acme', ['pat'], { documentIds: ['d', 'in-f'], folderIds: ['f'] });
    expect(data.pat!.organization.acme!.accessRole).toBe('viewer');
    expect(data.pat!.documents.d!.accessRole).toBe('viewer');
    expect(data.pat!.documents['in-f']!.accessRole).toBe('editor');
    expect(data.pat!.folders.f).toMatchObject({ accessRole: 'editor', accessType: 'restricted' });
  });

  it('creates a missing organization for an organization resource', async () => {
    await grant('org-user', [{ type: 'organization', id: 'new-org' }]);
    expect((await permissionsOf(t, 'new-org', ['org-user']))['org-user']!.organization['new-org']!.accessRole).toBe('editor');
  });

  it('honours expiresAt (Unix seconds): an expired grant gives no access', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const future = Math.floor(Date.now() / 1000) + 3600;
    await grant('temp', [{ type: 'document', id: 'd', organizationId: 'acme', expiresAt: past }]);
    expect(await documentRole(t, 'acme', 'temp', 'd')).toBeNull();
    await grant('temp', [{ type: 'document', id: 'd', organizationId: 'acme', expiresAt: future }]);
    expect(await documentRole(t, 'acme', 'temp', 'd')).toBe('editor');
    // a grant that runs out while the server runs stops working at that moment
    const soon = Math.floor(Date.now() / 1000) + 1;
    await grant('brief', [{ type: 'document', id: 'd', organizationId: 'acme', expiresAt: soon }]);
    expect(await documentRole(t, 'acme', 'brief', 'd')).toBe('editor');
    await eventually(async () => expect(await documentRole(t, 'acme', 'brief', 'd')).toBeNull(), 4000, 200);
  });

  it('refuses unknown folders and documents and a missing organizationId, changing nothing', async () => {
    const missingDoc = await grant('q', [
      { type: 'organization', id: 'acme' },
      { type: 'document', id: 'nope', organizationId: 'acme' },
    ]);
    expect(missingDoc.status).toBe(404);
    expect(errorOf(missingDoc)).toEqual({ status: 'NOT_FOUND', message: 'Document does not exist: nope in organization acme.' });
    // the organization grant of the same request was not written
    expect((await permissionsOf(t, 'acme', ['q'])).q!.organization.acme!.errorCode).toBe('permission_denied');
    expect(errorOf(await grant('q', [{ type: 'folder', id: 'nope', organizationId: 'acme' }])).message).toBe(
      'Folder does not exist: nope in organization acme.',
    );
    const noOrg = await grant('q', [{ type: 'folder', id: 'f' }]);
    expect(errorOf(noOrg)).toEqual({ status: 'INVALID_ARGUMENT', message: 'permissions.resources[0].organizationId is required for a folder.' });
  });

  it('grants context permissions, reported by permissions get as accessFields', async () => {
    const res = await t.callK('/v2/auth/permissions/add', {
      user: { userId: 'ctx' },
      permissions: { context: { access: { team: ['red', 'blue'], level: 3 } } },
    });
    expect(res.status).toBe(200);
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'ctx' }, permissions: { context: { access: { team: 'green' } } } });
    const got = await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['ctx', 'pat'] });
    expect(dataOf<Permissions>(got).ctx!.context).toEqual({ accessFields: ['team:red', 'team:blue', 'team:green', 'level:3'] });
    expect(dataOf<Permissions>(got).pat!.context).toBeUndefined();
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/auth/permissions/add', { permissions: { resources: [] } })).message).toBe('user is required.');
    expect(errorOf(await grant('q', [{ type: 'team', id: 'x' }])).message).toBe(
      'permissions.resources[0].type must be one of: organization, folder, document.',
    );
    expect(errorOf(await grant('q', [{ type: 'organization', id: 'acme', expiresAt: 'tomorrow' }])).message).toBe(
      'permissions.resources[0].expiresAt must be a number, not a string.',
    );
    expect((await grant('q', [{ type: 'organization', id: 'acme', accessRole: 'owner' }])).status).toBe(400);
  });

  it("cannot grant on another API key's resources", async () => {
    const other = await createWorkspace(t);
    const res = await grant('spy', [{ type: 'document', id: 'd', organizationId: 'acme' }], other.headersK);
    expect(res.status).toBe(404);
    expect(await documentRole(t, 'acme', 'spy', 'd')).toBeNull();
  });
});
