import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => t.close());

describe('/v2/commentannotations/delete', () => {
  it('deletes annotations with their comments and reactions, recording comment.deleteAnnotation', async () => {
    const { annotationId, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'ann' } }] });
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: commentIds[0], icon: 'up', from: { userId: 'bob' } });
    const res = await t.callK('/v2/commentannotations/delete', { organizationId: 'acme', annotationIds: [annotationId, 'ghost'], actionUser: { userId: 'ann' } });
    expect(res.body.result).toEqual({ status: 'success', message: 'Annotations deleted successfully.', data: { [annotationId]: { success: true, message: 'Deleted Successfully' }, ghost: { success: false, message: 'Annotation not found.' } } });
    expect((await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] })).body.result.data).toEqual([]);
    expect((await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId })).status).toBe(404);
    expect((await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'bob' })).body.result.data.reactions).toEqual([]);
    expect((await activitiesOf(t, annotationId)).map((a) => a.actionType)).toContain('comment.deleteAnnotation');
  });

  it('validates the input and keeps API keys apart', async () => {
    const { annotationId } = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }] });
    expect((await t.callK('/v2/commentannotations/delete', { organizationId: 'acme' })).body.error.message).toBe('annotationIds is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/delete', { organizationId: 'acme', annotationIds: [annotationId] }, other.headersK)).body.result.data[annotationId].success).toBe(false);
    expect((await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] })).body.result.data).toHaveLength(1);
  });
});
