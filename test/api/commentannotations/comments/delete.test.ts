import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../../helpers/comments.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/commentannotations/comments/delete';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentIds: number[];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, {
    commentData: [
      { commentText: 'keep', from: { userId: 'ann' }, triggerActivities: false },
      { commentText: 'drop', from: { userId: 'bob', name: 'Bob' }, taggedUserContacts: [{ userId: 'cat' }], triggerActivities: false },
      { commentText: 'drop too', from: { userId: 'dan' }, triggerActivities: false },
    ],
  }));
  for (const commentId of commentIds)
    await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon: 'up', from: { userId: 'eve' } });
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const del = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: 'acme', annotationId: id, ...data }, headers);
const texts = async () =>
  dataOf<Array<{ commentText: string | null }>>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id })).map(
    (c) => c.commentText,
  );
const annotationsWhere = async (filters: Record<string, unknown>) =>
  dataOf<Array<{ annotationId: string }>>(await t.callK('/v2/commentannotations/get', { organizationId: 'acme', ...filters })).map((a) => a.annotationId);
const deletions = async () => (await activitiesOf(t, id)).filter((a) => a.actionType === 'comment.delete');

describe('/v2/commentannotations/comments/delete', () => {
  it('deletes comments per id with their reactions, recording comment.delete by the author', async () => {
    expect(await annotationsWhere({ mentionedUserIds: ['cat'] })).toEqual([id]);
    const res = await del({ commentIds: [commentIds[1], 7, commentIds[1]] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Comments(s) deleted successfully.',
      data: { [commentIds[1]!]: { success: true, message: 'Deleted successfully' }, 7: { success: false, message: 'Not found' } },
    });
    expect(await texts()).toEqual(['keep', 'drop too']);
    const reactions = dataOf<Array<{ commentId: number }>>(await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id }));
    expect(reactions.map((r) => r.commentId)).toEqual([commentIds[0], commentIds[2]]);
    expect(await deletions()).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.delete',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        targetSubEntityId: String(commentIds[1]),
        displayMessageTemplate: '{{actionUser}} deleted a comment',
        displayMessageTemplateData: { actionUser: 'Bob' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
    // the deleted comment no longer counts for the author and mention filters
    expect(await annotationsWhere({ mentionedUserIds: ['cat'] })).toEqual([]);
    expect(await annotationsWhere({ userIds: ['bob'] })).toEqual([]);
    // deleting it again finds nothing
    expect(dataOf<Record<string, { success: boolean; message: string }>>(await del({ commentIds: [commentIds[1]] }))).toEqual({
      [commentIds[1]!]: { success: false, message: 'Not found' },
    });
  });

  it('records the given actionUser', async () => {
    await del({ commentIds: [commentIds[2]], actionUser: { userId: 'mod', name: 'Moderator' } });
    expect(await texts()).toEqual(['keep']);
    const mine = (await deletions()).filter((a) => a.targetSubEntityId === String(commentIds[2]));
    expect(mine.map((a) => [a.actionUser, a.displayMessageTemplateData])).toEqual([[{ userId: 'mod', name: 'Moderator' }, { actionUser: 'Moderator' }]]);
  });

  it('answers NOT_FOUND for an unknown annotation', async () => {
    const res = await del({ annotationId: 'ghost', commentIds: [commentIds[0]] });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'commentIds is required.'],
      [{ commentIds: [] }, 'commentIds must have at least 1 item(s).'],
      [{ commentIds: ['x'] }, 'commentIds[0] must be a number, not a string.'],
      [{ commentIds: [1.5] }, 'commentIds[0] must be an integer, not a number.'],
      [{ commentIds: [1], actionUser: {} }, 'actionUser.userId is required.'],
      [{ annotationId: undefined, commentIds: [1] }, 'annotationId is required.'],
      [{ organizationId: undefined, commentIds: [1] }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await del(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot delete another API key's comments", async () => {
    const before = await texts();
    const count = (await activitiesOf(t, id)).length;
    const res = await del({ commentIds: [commentIds[0]] }, other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect(await texts()).toEqual(before);
    expect(await activitiesOf(t, id)).toHaveLength(count);
  });
});
