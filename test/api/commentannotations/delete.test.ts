import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

const PATH = '/v2/commentannotations/delete';

interface Annotation {
  annotationId: string;
  comments: Array<{ commentId: number; commentText: string | null }>;
}
/** What /v2/users/data/get answers about a user (the parts these tests read). */
interface UserData {
  reactions: Array<{ icon: string }>;
  comments: Array<{ comment: { commentText: string | null } }>;
}
/** The per-annotation outcomes of /v2/commentannotations/delete, keyed by annotation id. */
type Outcomes = Record<string, { success: boolean; message: string }>;
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const exists = async (annotationId: string) =>
  dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] })).length === 1;
const reactionsOf = async (userId: string) => dataOf<UserData>(await t.callK('/v2/users/data/get', { organizationId: 'acme', userId })).reactions;

describe('/v2/commentannotations/delete', () => {
  it('deletes annotations with their comments and reactions, per item, recording comment.deleteAnnotation', async () => {
    const { annotationId, commentIds } = await addAnnotation(t, {
      commentData: [
        { commentText: 'x', from: { userId: 'ann' }, triggerActivities: false },
        { commentText: 'y', from: { userId: 'bob' }, triggerActivities: false },
      ],
    });
    const kept = await addAnnotation(t, { commentData: [{ commentText: 'keep', from: { userId: 'ann' } }] });
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: commentIds[0], icon: 'up', from: { userId: 'bob' } });
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId, commentId: commentIds[1], icon: 'up', from: { userId: 'bob' } });
    await t.callK('/v2/reactions/add', {
      organizationId: 'acme',
      annotationId: kept.annotationId,
      commentId: kept.commentIds[0],
      icon: 'kept',
      from: { userId: 'bob' },
    });
    expect(await reactionsOf('bob')).toHaveLength(3);

    const res = await t.callK(PATH, {
      organizationId: 'acme',
      annotationIds: [annotationId, 'ghost', annotationId],
      actionUser: { userId: 'cat', name: 'Cat' },
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Annotations deleted successfully.',
      data: { [annotationId]: { success: true, message: 'Deleted Successfully' }, ghost: { success: false, message: 'Annotation not found.' } },
    });
    expect(await exists(annotationId)).toBe(false);
    expect(errorOf(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Annotation not found.',
    });
    expect((await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId })).status).toBe(404);
    // only the deleted annotation's reactions and comments are gone
    expect((await reactionsOf('bob')).map((r) => r.icon)).toEqual(['kept']);
    expect(await exists(kept.annotationId)).toBe(true);
    expect(dataOf<UserData>(await t.callK('/v2/users/data/get', { organizationId: 'acme', userId: 'ann' })).comments.map((c) => c.comment.commentText)).toEqual(
      ['keep'],
    );

    const activities = (await activitiesOf(t, annotationId)).filter((a) => a.actionType !== 'reaction.add');
    expect(activities).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.deleteAnnotation',
        actionUser: { userId: 'cat', name: 'Cat' },
        targetEntityId: annotationId,
        targetSubEntityId: null,
        displayMessageTemplate: '{{actionUser}} deleted a comment thread',
        displayMessageTemplateData: { actionUser: 'Cat' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
    // a second delete finds nothing
    expect(dataOf<Outcomes>(await t.callK(PATH, { organizationId: 'acme', annotationIds: [annotationId] }))).toEqual({
      [annotationId]: { success: false, message: 'Annotation not found.' },
    });
  });

  it('without actionUser, the annotation author is the actor; an annotation id can be reused after deletion', async () => {
    await addAnnotation(t, { annotationId: 'reuse', commentData: [{ commentText: 'old', from: { userId: 'dan', name: 'Dan' }, triggerActivities: false }] });
    expect(dataOf<Outcomes>(await t.callK(PATH, { organizationId: 'acme', annotationIds: ['reuse'] })).reuse!.success).toBe(true);
    const deleted = (await activitiesOf(t, 'reuse')).filter((a) => a.actionType === 'comment.deleteAnnotation');
    expect(deleted.map((a) => [a.actionUser, a.displayMessageTemplateData])).toEqual([[{ userId: 'dan' }, { actionUser: 'dan' }]]);
    await addAnnotation(t, { annotationId: 'reuse', commentData: [{ commentText: 'new', from: { userId: 'ann' } }] });
    const [again] = dataOf<Annotation[]>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: ['reuse'] }));
    expect(again!.comments.map((c) => c.commentText)).toEqual(['new']);
  });

  it('lowers the comment count of the document', async () => {
    const count = async () =>
      dataOf<{ doc: { total: number } }>(await t.callK('/v2/commentannotations/count/get', { organizationId: 'acme', documentIds: ['doc'], userId: 'zed' })).doc
        .total;
    const before = await count();
    const { annotationId } = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' } }] });
    expect(await count()).toBe(before + 1);
    await t.callK(PATH, { organizationId: 'acme', annotationIds: [annotationId] });
    expect(await count()).toBe(before);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme' }, 'annotationIds is required.'],
      [{ organizationId: 'acme', annotationIds: [] }, 'annotationIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', annotationIds: [''] }, 'annotationIds[0] must not be empty.'],
      [{ organizationId: 'acme', annotationIds: 'x' }, 'annotationIds must be an array, not a string.'],
      [{ annotationIds: ['x'] }, 'organizationId is required.'],
      [{ organizationId: 'acme', annotationIds: ['x'], actionUser: {} }, 'actionUser.userId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot delete another API key's annotations", async () => {
    const { annotationId, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'mine', from: { userId: 'ann' } }] });
    const res = await t.callPublic(PATH, { organizationId: 'acme', annotationIds: [annotationId] }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf<Outcomes>(res)).toEqual({ [annotationId]: { success: false, message: 'Annotation not found.' } });
    expect(await exists(annotationId)).toBe(true);
    expect(
      dataOf<Annotation['comments']>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId })).map((c) => c.commentId),
    ).toEqual(commentIds);
    expect((await activitiesOf(t, annotationId)).map((a) => a.actionType)).toEqual(['comment.add']);
  });
});
