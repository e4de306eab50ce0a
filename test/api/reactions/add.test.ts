import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface Reaction {
  reactionId: string;
  commentId: number;
  icon: string;
  from: { userId: string };
}
/** A comment as comments/get answers it, with its reactions. */
interface CommentItem {
  commentId: number;
  reactionAnnotations: Reaction[];
  reactionAnnotationIds: string[];
}

const PATH = '/v2/reactions/add';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentId: number;
let secondCommentId: number;
let elsewhere: { annotationId: string; commentIds: number[] };
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const added = await addAnnotation(t, {
    commentData: [
      { commentText: 'x', from: { userId: 'ann' }, triggerActivities: false },
      { commentText: 'y', from: { userId: 'ann' }, triggerActivities: false },
    ],
  });
  id = added.annotationId;
  [commentId, secondCommentId] = added.commentIds as [number, number];
  elsewhere = await addAnnotation(t, { commentData: [{ commentText: 'z', from: { userId: 'ann' }, triggerActivities: false }] });
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const react = (data: Record<string, unknown>, headers?: Record<string, string>) =>
  t.callK(PATH, { organizationId: 'acme', annotationId: id, commentId, icon: 'thumbsup', from: { userId: 'bob', name: 'Bob' }, ...data }, headers);
const reactionsOf = async (annotationId = id) => dataOf<Reaction[]>(await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId }));

describe('/v2/reactions/add', () => {
  it('adds a reaction, recording reaction.add', async () => {
    const res = await react({});
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Reaction added successfully.',
      data: {
        reactionId: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
        annotationId: id,
        commentId,
        icon: 'thumbsup',
        from: { userId: 'bob', name: 'Bob' },
        createdAt: expect.any(Number),
      },
    });
    expect(await reactionsOf()).toEqual([dataOf(res)]);
    expect(await activitiesOf(t, id)).toEqual([
      expect.objectContaining({
        featureType: 'reaction',
        actionType: 'reaction.add',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        targetSubEntityId: String(commentId),
        entityData: { icon: 'thumbsup' },
        displayMessageTemplate: '{{actionUser}} reacted with {{icon}}',
        displayMessageTemplateData: { actionUser: 'Bob', icon: 'thumbsup' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
  });

  it('adds once per user and icon: a second add returns the same reaction with "Reaction already exists."', async () => {
    const [existing] = await reactionsOf();
    for (const icon of ['thumbsup', '  thumbsup ']) {
      const again = await react({ icon });
      expect(again.status).toBe(200);
      expect(resultOf(again)).toEqual({ status: 'success', message: 'Reaction already exists.', data: existing });
    }
    expect(await reactionsOf()).toHaveLength(1);
    expect(await activitiesOf(t, id)).toHaveLength(1);
  });

  it('counts another icon, another user or another comment as a new reaction', async () => {
    const first = (await reactionsOf())[0]!.reactionId;
    const added = [await react({ icon: 'heart' }), await react({ from: { userId: 'cat' } }), await react({ commentId: secondCommentId })];
    for (const res of added) expect(resultOf(res).message).toBe('Reaction added successfully.');
    const ids = added.map((r) => dataOf<Reaction>(r).reactionId);
    expect(new Set([first, ...ids]).size).toBe(4);
    expect((await reactionsOf()).map((r) => [r.commentId, r.icon, r.from.userId])).toEqual([
      [commentId, 'thumbsup', 'bob'],
      [commentId, 'heart', 'bob'],
      [commentId, 'thumbsup', 'cat'],
      [secondCommentId, 'thumbsup', 'bob'],
    ]);
    expect((await activitiesOf(t, id)).filter((a) => a.actionType === 'reaction.add')).toHaveLength(4);
  });

  it('shows reactions in comments/get reactionAnnotations', async () => {
    const comments = dataOf<CommentItem[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id }));
    const all = await reactionsOf();
    expect(comments[0]!.reactionAnnotations).toEqual(all.filter((r) => r.commentId === commentId));
    expect(comments[0]!.reactionAnnotationIds).toEqual(all.filter((r) => r.commentId === commentId).map((r) => r.reactionId));
    expect(comments[1]!.reactionAnnotations.map((r) => r.icon)).toEqual(['thumbsup']);
  });

  it('answers NOT_FOUND for an unknown annotation or comment, including a comment of another annotation', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ commentId: 1 }, 'Comment not found.'],
      [{ commentId: elsewhere.commentIds[0] }, 'Comment not found.'],
      [{ annotationId: 'ghost' }, 'Annotation not found.'],
      [{ organizationId: 'elsewhere' }, 'Annotation not found.'],
    ];
    for (const [data, message] of cases) {
      const res = await react(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 404, body: { error: { status: 'NOT_FOUND', message } } });
    }
    expect(await reactionsOf(elsewhere.annotationId)).toEqual([]);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ icon: '' }, 'icon must not be empty.'],
      [{ icon: '   ' }, 'icon must not be empty.'],
      [{ icon: 'x'.repeat(65) }, 'icon must be at most 64 characters long.'],
      [{ icon: undefined }, 'icon is required.'],
      [{ from: undefined }, 'from is required.'],
      [{ from: {} }, 'from.userId is required.'],
      [{ commentId: undefined }, 'commentId is required.'],
      [{ commentId: '1' }, 'commentId must be a number, not a string.'],
      [{ commentId: 1.5 }, 'commentId must be an integer, not a number.'],
      [{ annotationId: undefined }, 'annotationId is required.'],
      [{ organizationId: undefined }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await react(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot react to another API key's comments", async () => {
    const before = await reactionsOf();
    const res = await react({ icon: 'intruder' }, other.headersK);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect(await reactionsOf()).toEqual(before);
    expect((await activitiesOf(t, id)).map((a) => a.entityData?.icon)).not.toContain('intruder');
  });
});
