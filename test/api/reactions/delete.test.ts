import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

interface Reaction {
  reactionId: string;
  icon: string;
}
/** A comment as comments/get answers it, with its reactions. */
interface CommentItem {
  reactionAnnotations: Reaction[];
  reactionAnnotationIds: string[];
}

const PATH = '/v2/reactions/delete';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let commentIds: number[];
const reactionIds: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  ({ annotationId: id, commentIds } = await addAnnotation(t, {
    commentData: [
      { from: { userId: 'ann' }, triggerActivities: false },
      { from: { userId: 'ann' }, triggerActivities: false },
    ],
  }));
  for (const [commentId, icon, from] of [
    [commentIds[0], 'x', { userId: 'bob', name: 'Bob' }],
    [commentIds[0], 'y', { userId: 'cat' }],
    [commentIds[1], 'z', { userId: 'dan' }],
  ] as const) {
    reactionIds.push(dataOf<Reaction>(await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon, from })).reactionId);
  }
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const remaining = async () => dataOf<Reaction[]>(await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id })).map((r) => r.reactionId);
const deletions = async () => (await activitiesOf(t, id)).filter((a) => a.actionType === 'reaction.delete');

describe('/v2/reactions/delete', () => {
  it("cannot delete another API key's reactions", async () => {
    const res = await t.callPublic(PATH, { organizationId: 'acme', reactionIds }, other.headersK);
    expect(res.status).toBe(200);
    expect(dataOf(res)).toEqual(Object.fromEntries(reactionIds.map((r) => [r, { success: false, message: 'Reaction not found.' }])));
    expect(await remaining()).toEqual(reactionIds);
    expect(await deletions()).toEqual([]);
  });

  it('deletes reactions per id, recording reaction.delete by the reacting user', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[0], 'ghost', reactionIds[0]] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Reaction(s) deleted successfully.',
      data: { [reactionIds[0]!]: { success: true, message: 'Reaction deleted.' }, ghost: { success: false, message: 'Reaction not found.' } },
    });
    expect(await remaining()).toEqual(reactionIds.slice(1));
    const comments = dataOf<CommentItem[]>(await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id }));
    expect(comments[0]!.reactionAnnotationIds).toEqual([reactionIds[1]]);
    expect(comments[0]!.reactionAnnotations.map((r) => r.icon)).toEqual(['y']);
    expect(await deletions()).toEqual([
      expect.objectContaining({
        featureType: 'reaction',
        actionType: 'reaction.delete',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        targetSubEntityId: String(commentIds[0]),
        entityData: { icon: 'x' },
        displayMessageTemplate: '{{actionUser}} removed a reaction',
        displayMessageTemplateData: { actionUser: 'Bob' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
    // a second delete finds nothing and records nothing
    expect(dataOf(await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[0]] }))).toEqual({
      [reactionIds[0]!]: { success: false, message: 'Reaction not found.' },
    });
    expect(await deletions()).toHaveLength(1);
  });

  it('deletes several at once; the same reaction can then be added again with a new id', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[1], reactionIds[2]] });
    expect(dataOf(res)).toEqual({
      [reactionIds[1]!]: { success: true, message: 'Reaction deleted.' },
      [reactionIds[2]!]: { success: true, message: 'Reaction deleted.' },
    });
    expect(await remaining()).toEqual([]);
    expect((await deletions()).map((a) => [a.actionUser.userId, a.targetSubEntityId]).sort()).toEqual([
      ['bob', String(commentIds[0])],
      ['cat', String(commentIds[0])],
      ['dan', String(commentIds[1])],
    ]);
    const again = await t.callK('/v2/reactions/add', {
      organizationId: 'acme',
      annotationId: id,
      commentId: commentIds[0],
      icon: 'y',
      from: { userId: 'cat' },
    });
    expect(resultOf(again).message).toBe('Reaction added successfully.');
    expect(dataOf<Reaction>(again).reactionId).not.toBe(reactionIds[1]);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ organizationId: 'acme' }, 'reactionIds is required.'],
      [{ organizationId: 'acme', reactionIds: [] }, 'reactionIds must have at least 1 item(s).'],
      [{ organizationId: 'acme', reactionIds: [''] }, 'reactionIds[0] must not be empty.'],
      [{ organizationId: 'acme', reactionIds: 'x' }, 'reactionIds must be an array, not a string.'],
      [{ reactionIds: ['x'] }, 'organizationId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(PATH, data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });
});
