import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

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
    reactionIds.push((await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon, from })).body.result.data.reactionId);
  }
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const remaining = async () => (await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id })).body.result.data.map((r: any) => r.reactionId);
const deletions = async () => (await activitiesOf(t, id)).filter((a) => a.actionType === 'reaction.delete');

describe('/v2/reactions/delete', () => {
  it("cannot delete another API key's reactions", async () => {
    const res = await t.callPublic(PATH, { organizationId: 'acme', reactionIds }, other.headersK);
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual(Object.fromEntries(reactionIds.map((r) => [r, { success: false, message: 'Reaction not found.' }])));
    expect(await remaining()).toEqual(reactionIds);
    expect(await deletions()).toEqual([]);
  });

  it('deletes reactions per id, recording reaction.delete by the reacting user', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[0], 'ghost', reactionIds[0]] });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: 'success',
      message: 'Reaction(s) deleted successfully.',
      data: { [reactionIds[0]!]: { success: true, message: 'Reaction deleted.' }, ghost: { success: false, message: 'Reaction not found.' } },
    });
    expect(await remaining()).toEqual(reactionIds.slice(1));
    const comments = (await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id })).body.result.data;
    expect(comments[0].reactionAnnotationIds).toEqual([reactionIds[1]]);
    expect(comments[0].reactionAnnotations.map((r: any) => r.icon)).toEqual(['y']);
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
    expect((await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[0]] })).body.result.data).toEqual({
      [reactionIds[0]!]: { success: false, message: 'Reaction not found.' },
    });
    expect(await deletions()).toHaveLength(1);
  });

  it('deletes several at once; the same reaction can then be added again with a new id', async () => {
    const res = await t.callK(PATH, { organizationId: 'acme', reactionIds: [reactionIds[1], reactionIds[2]] });
    expect(res.body.result.data).toEqual({
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
    expect(again.body.result.message).toBe('Reaction added successfully.');
    expect(again.body.result.data.reactionId).not.toBe(reactionIds[1]);
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
