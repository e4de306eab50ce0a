import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let id: string;
let reactionId: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const added = await addAnnotation(t, { commentData: [{ from: { userId: 'ann' }, triggerActivities: false }] });
  id = added.annotationId;
  reactionId = (await t.callK('/v2/reactions/add', { organizationId: 'acme', annotationId: id, commentId: added.commentIds[0], icon: 'x', from: { userId: 'bob' } })).body.result.data.reactionId;
});
afterAll(() => t.close());

describe('/v2/reactions/delete', () => {
  it('deletes reactions per id, recording reaction.delete', async () => {
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/reactions/delete', { organizationId: 'acme', reactionIds: [reactionId] }, other.headersK)).body.result.data[reactionId].success).toBe(false);
    const res = await t.callK('/v2/reactions/delete', { organizationId: 'acme', reactionIds: [reactionId, 'ghost'] });
    expect(res.body.result).toEqual({ status: 'success', message: 'Reaction(s) deleted successfully.', data: { [reactionId]: { success: true, message: 'Reaction deleted.' }, ghost: { success: false, message: 'Reaction not found.' } } });
    expect((await t.callK('/v2/reactions/get', { organizationId: 'acme', annotationId: id })).body.result.data).toEqual([]);
    expect((await activitiesOf(t, id)).map((a) => a.actionType)).toEqual(['reaction.add', 'reaction.delete']);
  });

  it('validates the input', async () => {
    expect((await t.callK('/v2/reactions/delete', { organizationId: 'acme', reactionIds: [] })).body.error.message).toBe('reactionIds must have at least 1 item(s).');
  });
});
