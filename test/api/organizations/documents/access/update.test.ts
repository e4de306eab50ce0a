import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole } from '../../../../helpers/access.ts';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd', accessType: 'organizationPrivate' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'org-member' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd', users: [{ userId: 'doc-member', accessRole: 'viewer' }] });
});
afterAll(() => t.close());

const path = '/v2/organizations/documents/access/update';

describe(path, () => {
  it('restricted keeps document members only; public opens it to every user; organizationPrivate to members', async () => {
    const res = await t.callK(path, { organizationId: 'acme', documentIds: ['d', 'ghost'], accessType: 'restricted' });
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Updated access for documents successfully.',
      data: { d: { success: true, id: 'd', message: 'Document access type updated.' }, ghost: { success: false, id: 'ghost', message: 'Document does not exist' } },
    });
    expect(await documentRole(t, 'acme', 'org-member', 'd')).toBeNull();
    expect(await documentRole(t, 'acme', 'doc-member', 'd')).toBe('viewer');
    expect(await documentRole(t, 'acme', 'stranger', 'd')).toBeNull();

    await t.callK(path, { organizationId: 'acme', documentIds: ['d'], accessType: 'public' });
    expect(await documentRole(t, 'acme', 'stranger', 'd')).toBe('editor');

    await t.callK(path, { organizationId: 'acme', documentIds: ['d'], accessType: 'organizationPrivate' });
    expect(await documentRole(t, 'acme', 'org-member', 'd')).toBe('editor');
    expect(await documentRole(t, 'acme', 'stranger', 'd')).toBeNull();
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK(path, { organizationId: 'acme', documentIds: ['d'], accessType: 'everyone' })).body.error.message).toBe('accessType must be one of: public, restricted, organizationPrivate.');
    const other = await createWorkspace(t);
    const res = await t.callPublic(path, { organizationId: 'acme', documentIds: ['d'], accessType: 'public' }, other.headersK);
    expect(res.body.result.data.d.success).toBe(false);
    expect(await documentRole(t, 'acme', 'stranger', 'd')).toBeNull();
  });
});
