import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let id: string;
let commentId: number;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const added = await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'ann' }, triggerActivities: false }] });
  id = added.annotationId;
  commentId = added.commentIds[0]!;
});
afterAll(() => t.close());

const react = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId, icon: 'thumbsup', from: { userId: 'bob', name: 'Bob' }, ...data }, headers);

describe('/v2/reactions/add', () => {
  it('adds a reaction once per user and icon, recording reaction.add', async () => {
    const res = await react({});
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Reaction added successfully.');
    expect(res.body.result.data).toEqual({ reactionId: expect.stringMatching(/^[A-Za-z0-9]{20}$/), annotationId: id, commentId, icon: 'thumbsup', from: { userId: 'bob', name: 'Bob' }, createdAt: expect.any(Number) });
    const again = await react({});
    expect(again.body.result.message).toBe('Reaction already exists.');
    expect(again.body.result.data.reactionId).toBe(res.body.result.data.reactionId);
    expect((await activitiesOf(t, id)).map((a) => [a.featureType, a.actionType, a.entityData])).toEqual([['reaction', 'reaction.add', { icon: 'thumbsup' }]]);
  });

  it('answers NOT_FOUND for an unknown comment or annotation, validates, and keeps API keys apart', async () => {
    expect((await react({ commentId: 1 })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Comment not found.' });
    expect((await react({ annotationId: 'ghost' })).body.error).toEqual({ status: 'NOT_FOUND', message: 'Annotation not found.' });
    expect((await react({ icon: '' })).body.error.message).toBe('icon must not be empty.');
    const other = await createWorkspace(t);
    expect((await react({}, other.headersK)).status).toBe(404);
  });
});
