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
  ({ annotationId: id, commentIds } = await addAnnotation(t, { commentData: [{ commentText: 'old', from: { userId: 'ann' }, triggerActivities: false }] }));
});
afterAll(() => t.close());

const comment = async () => (await t.callK('/v2/commentannotations/comments/get', { organizationId: 'acme', annotationId: id })).body.result.data[0];

describe('/v2/commentannotations/comments/update', () => {
  it('edits comments per id, recording comment.update with the text change', async () => {
    const res = await t.callK('/v2/commentannotations/comments/update', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[0], 1], updatedData: { commentText: 'new', taggedUserContacts: [{ userId: 'bob' }] } });
    expect(res.body.result).toEqual({ status: 'success', message: 'Comment updated successfully.', data: { [commentIds[0]!]: { success: true, message: 'Updated successfully' }, 1: { success: false, message: 'Not found' } } });
    expect(await comment()).toMatchObject({ commentText: 'new', mentionedUserIds: ['bob'] });
    expect((await activitiesOf(t, id)).map((a) => [a.actionType, a.changes])).toEqual([['comment.update', { commentText: { from: 'old', to: 'new' } }]]);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/comments/update', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[0]], updatedData: {} })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'updatedData must change at least one field.' });
    const other = await createWorkspace(t);
    expect((await t.callPublic('/v2/commentannotations/comments/update', { organizationId: 'acme', annotationId: id, commentIds: [commentIds[0]], updatedData: { commentText: 'x' } }, other.headersK)).status).toBe(404);
    expect((await comment()).commentText).toBe('new');
  });
});
