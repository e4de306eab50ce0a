import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }, { userId: 'bob' }] });
  id = (await addAnnotation(t, { commentData: [{ commentText: 'first', from: { userId: 'ann' }, triggerActivities: false }] })).annotationId;
});
afterAll(() => t.close());

describe('/v2/commentannotations/comments/add', () => {
  it('adds comments, answers their numeric ids, records activities and notifies mentions', async () => {
    const res = await t.callK('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId: id, commentData: [{ commentText: 'reply @ann', from: { userId: 'bob', name: 'Bob' }, taggedUserContacts: [{ userId: 'ann' }] }, { commentText: 'more', from: { userId: 'bob' } }] });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Comment(s) added successfully.');
    expect(res.body.result.data).toEqual([expect.any(Number), expect.any(Number)]);
    const comments = (await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id })).body.result.data;
    expect(comments.map((c: any) => c.commentText)).toEqual(['first', 'reply @ann', 'more']);
    expect((await activitiesOf(t, id)).map((a) => [a.actionType, a.targetSubEntityId])).toEqual(res.body.result.data.map((n: number) => ['comment.add', String(n)]));
    const inbox = (await t.callK('/v2/notifications/get', { organizationId: 'acme', userId: 'ann' })).body.result.data;
    expect(inbox[0]).toMatchObject({ notificationSource: 'comment', notificationSourceData: { annotationId: id, commentId: res.body.result.data[0] } });
  });

  it('answers NOT_FOUND for an unknown annotation, validates, and keeps API keys apart', async () => {
    const res = await t.callK('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId: 'ghost', commentData: [{ from: { userId: 'ann' } }] });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect((await t.callK('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId: id, commentData: [{}] })).body.error.message).toBe('commentData[0].from is required.');
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/comments/add', { organizationId: 'acme', annotationId: id, commentData: [{ from: { userId: 'x' } }] }, other.headersK)).status).toBe(404);
  });
});
