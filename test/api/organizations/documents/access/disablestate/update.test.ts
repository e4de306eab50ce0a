import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentRole, permissionsOf } from '../../../../../helpers/access.ts';
import { createWorkspace } from '../../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd', accessType: 'organizationPrivate' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ed' }] });
});
afterAll(() => t.close());

const path = '/v2/organizations/documents/access/disablestate/update';

describe(path, () => {
  it('makes editors viewers of a disabled document, with a reason; re-enabling restores', async () => {
    const res = await t.callK(path, { organizationId: 'acme', documentIds: ['d'], disabled: true });
    expect(res.body.result).toEqual({ status: 'success', message: 'Updated disable state for documents successfully.', data: { d: { success: true, id: 'd', message: 'Document disable state updated.' } } });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['d'] })).body.result.data[0].disabled).toBe(true);
    const data = await permissionsOf(t, 'acme', ['ed'], { documentIds: ['d'] });
    expect(data.ed!.documents.d).toMatchObject({ accessRole: 'viewer', reasons: ['editor through organization membership', 'read-only: the document is disabled'] });
    await t.callK(path, { organizationId: 'acme', documentIds: ['d'], disabled: false });
    expect(await documentRole(t, 'acme', 'ed', 'd')).toBe('editor');
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK(path, { organizationId: 'acme', documentIds: ['d'], disabled: 'yes' })).body.error.message).toBe('disabled must be a boolean, not a string.');
    const other = await createWorkspace(t);
    expect((await t.callPublic(path, { organizationId: 'acme', documentIds: ['d'], disabled: true }, other.headersK)).body.result.data.d.success).toBe(false);
    expect(await documentRole(t, 'acme', 'ed', 'd')).toBe('editor');
  });
});
