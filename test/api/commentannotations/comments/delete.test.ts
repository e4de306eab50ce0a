import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
let id: string;
let commentIds: number[];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'keep', from: { userId: 'ann' }, triggerActivities: false }, { commentText: 'drop', from: { userId: 'bob' }, triggerActivities: false }] }));
});
afterAll(() => t.close());

describe('/v2/commentannotations/comments/delete', () => {
  it('deletes comments per id, recording comment.delete', async () => {
    const res = await t.callK('/v2/commentannotations/comments/delete', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[1], 7] });
    expect(res.body.result).toEqual({ status: 'success', message: 'Comments(s) deleted successfully.', data: { [commentIds[1]!]: { success: true, message: 'Deleted successfully' }, 7: { success: false, message: 'Not found' } } });
    const left = (await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id })).body.result.data;
    expect(left.map((c: any) => c.commentText)).toEqual(['keep']);
    expect((await activitiesOf(t, id)).map((a) => [a.actionType, a.actionUser.userId])).toEqual([['comment.delete', 'bob']]);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/comments/delete', { organizationId: 'acme', annotationId: id, commentIds: ['x'] })).body.error.message).toBe('commentIds[0] must be a number, not a string.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/comments/delete', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[0]] }, other.headersK)).status).toBe(404);
  });
});
