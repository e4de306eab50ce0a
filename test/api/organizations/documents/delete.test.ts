import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole } from '../../../helpers/access.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', accessType: 'restricted' }, { documentId: 'd2' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'd1', users: [{ userId: 'member' }] });
});
afterAll(() => t.close());

describe('/v2/organizations/documents/delete', () => {
  it('deletes documents with their memberships', async () => {
    expect(await documentRole(t, 'acme', 'member', 'd1')).toBe('editor');
    const res = await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['d1'] });
    expect(res.body.result).toEqual({ status: 'success', message: 'Document(s) deleted successfully.', data: { d1: { success: true, id: 'd1', message: 'Deleted Successfully' } } });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['d1'] })).status).toBe(404);
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'd1', accessType: 'restricted' }] });
    expect(await documentRole(t, 'acme', 'member', 'd1')).toBeNull();
  });

  it('is all or nothing on a missing id', async () => {
    const res = await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['d2', 'ghost'] });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Error deleting document(s).');
    expect(res.body.error.details.ghost).toEqual({ success: false, code: 'not-found', message: 'Document does not exist' });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['d2'] })).status).toBe(200);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme' })).body.error.message).toBe('documentIds is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['d2'] }, other.headersK)).status).toBe(404);
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['d2'] })).status).toBe(200);
  });
});
