import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', documentName: 'One', metadata: { a: 1 } }, { documentId: 'd2' }] });
});
afterAll(() => t.close());

const get = async (id: string) => (await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: [id] })).body.result.data[0];

describe('/v2/organizations/documents/update', () => {
  it('renames and merges metadata', async () => {
    const res = await t.callK('/v2/organizations/documents/update', { organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 'Uno', metadata: { b: 2 } }] });
    expect(res.body.result).toEqual({ status: 'success', message: 'Document(s) updated successfully.', data: { d1: { success: true, id: 'd1', message: 'Updated Successfully' } } });
    expect(await get('d1')).toMatchObject({ documentName: 'Uno', metadata: { a: 1, b: 2 } });
  });

  it('is all or nothing: a missing id fails with details and nothing changes', async () => {
    const res = await t.callK('/v2/organizations/documents/update', { organizationId: 'acme', documents: [{ documentId: 'd2', documentName: 'Two' }, { documentId: 'ghost' }] });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({
      status: 'NOT_FOUND',
      message: 'Error updating document(s).',
      details: { d2: { success: false, code: 'aborted', message: 'Not changed: another document of the request failed.' }, ghost: { success: false, code: 'not-found', message: 'Document does not exist' } },
    });
    expect((await get('d2')).documentName).toBe('');
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/organizations/documents/update', { organizationId: 'acme', documents: [] })).body.error.message).toBe('documents must have at least 1 item(s).');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/organizations/documents/update', { organizationId: 'acme', documents: [{ documentId: 'd1', documentName: 'Hijacked' }] }, other.headersK)).status).toBe(404);
    expect((await get('d1')).documentName).toBe('Uno');
  });
});
