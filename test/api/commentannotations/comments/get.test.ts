import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
let id: string;
let commentIds: number[];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'a', commentHtml: '<b>a</b>', from: { userId: 'ann', name: 'Ann' }, context: { c: 1 } }, { commentText: 'b', from: { userId: 'bob' } }] }));
  await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId: commentIds[0], icon: 'heart', from: { userId: 'bob' } });
});
afterAll(() => t.close());

describe('/v2/commentannotations/comments/get', () => {
  it('returns the comments in order, with their reactions', async () => {
    const res = await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id });
    expect(res.body.result.message).toBe('Comments retrieved successfully.');
    const [first, second] = res.body.result.data;
    expect(first).toMatchObject({ commentId: commentIds[0], type: 'text', commentText: 'a', commentHtml: '<b>a</b>', from: { userId: 'ann', name: 'Ann' }, context: { c: 1 }, taggedUserContacts: [], mentionedUserIds: [] });
    expect(first.reactionAnnotations).toEqual([{ reactionId: first.reactionAnnotationIds[0], annotationId: id, commentId: commentIds[0], icon: 'heart', from: { userId: 'bob' }, createdAt: expect.any(Number) }]);
    expect(second.reactionAnnotations).toEqual([]);
    const one = await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[1]] });
    expect(one.body.result.data.map((c: any) => c.commentText)).toEqual(['b']);
  });

  it('answers NOT_FOUND for an unknown annotation and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: 'ghost' })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id }, other.headersK)).status).toBe(404);
  });
});
