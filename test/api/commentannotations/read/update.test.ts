import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  id = (await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'bob' } }] })).annotationId;
});
afterAll(() => t.close());

const unread = async () => (await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc'], userId: 'ann' })).body.result.data.doc.unread;

describe('/v2/commentannotations/read/update', () => {
  it('marks annotations read for a user', async () => {
    expect(await unread()).toBe(1);
    const res = await t.callK('/v2/commentannotations/read/update', { organizationId: 'acme', annotationIds: [id, 'ghost'], userId: 'ann' });
    expect(res.body.result).toEqual({ status: 'success', message: 'Annotations marked as read successfully.', data: { [id]: { success: true, message: 'Marked as read.' }, ghost: { success: false, message: 'Annotation not found.' } } });
    expect(await unread()).toBe(0);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/read/update', { organizationId: 'acme', annotationIds: [id] })).body.error.message).toBe('userId is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/read/update', { organizationId: 'acme', annotationIds: [id], userId: 'ann' }, other.headersK)).body.result.data[id].success).toBe(false);
  });
});
