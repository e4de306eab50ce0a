import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const add = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/organizations/documents/add', data, headers);
const get = async (documentIds: string[]) => (await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds })).body;

describe('/v2/organizations/documents/add', () => {
  it('adds documents, into the organization or a folder', async () => {
    const res = await add({ organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', documentName: 'One', metadata: { k: 1 } }, { documentId: 'd2', accessType: 'restricted' }] });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ status: 'success', message: 'Document(s) added successfully.', data: { d1: { success: true, id: 'd1', message: 'Added Successfully' }, d2: { success: true, id: 'd2', message: 'Added Successfully' } } });
    const docs = (await get(['d1', 'd2'])).result.data;
    expect(docs[0]).toMatchObject({ id: 'd1', documentName: 'One', accessType: 'public', disabled: false, folderId: 'root', metadata: { k: 1 } });
    expect(docs[1]).toMatchObject({ id: 'd2', accessType: 'restricted' });
    await add({ organizationId: 'acme', folderId: 'new-folder', createFolder: true, documents: [{ documentId: 'd3' }] });
    expect((await get(['d3'])).result.data[0].folderId).toBe('new-folder');
  });

  it('is all or nothing: an existing id fails the call with per-id details and writes nothing', async () => {
    const res = await add({ organizationId: 'acme', documents: [{ documentId: 'fresh' }, { documentId: 'd1' }] });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      status: 'ALREADY_EXISTS',
      message: 'Error adding document(s).',
      details: {
        fresh: { success: false, code: 'aborted', message: 'Not added: another document of the request failed.' },
        d1: { success: false, code: 'already-exists', message: 'Document already exists.' },
      },
    });
    expect((await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['fresh'] })).status).toBe(404);
  });

  it('takes the default access type from the API key configuration', async () => {
    await t.callK('/v2/workspace/apikeyconfig/update', { defaultDocumentAccessType: 'organizationPrivate' });
    await add({ organizationId: 'acme', documents: [{ documentId: 'private-by-default' }] });
    expect((await get(['private-by-default'])).result.data[0].accessType).toBe('organizationPrivate');
    await t.callK('/v2/workspace/apikeyconfig/update', { defaultDocumentAccessType: 'public' });
  });

  it('needs existing parents unless asked to create them, and validates the input', async () => {
    expect((await add({ organizationId: 'nope', documents: [{ documentId: 'x' }] })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Organization does not exist: nope. Pass createOrganization: true to create it.' });
    expect((await add({ organizationId: 'acme', folderId: 'nope', documents: [{ documentId: 'x' }] })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Folder does not exist: nope. Pass createFolder: true to create it.' });
    expect((await add({ organizationId: 'acme', documents: [{ documentId: 'x' }, { documentId: 'x' }] })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'documents lists a document more than once.' });
    expect((await add({ organizationId: 'acme', documents: [{ documentName: 'x' }] })).body.error.message).toBe('documents[0].documentId is required.');
    expect((await add({ organizationId: 'acme', documents: [{ documentId: 'x', accessType: 'everyone' }] })).body.error.message).toBe('documents[0].accessType must be one of: public, restricted, organizationPrivate.');
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    expect((await add({ organizationId: 'acme', documents: [{ documentId: 'd1' }] }, other.headersK)).status).toBe(404);
    expect((await add({ organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1', documentName: 'Theirs' }] }, other.headersK)).status).toBe(200);
    expect((await get(['d1'])).result.data[0].documentName).toBe('One');
  });
});
