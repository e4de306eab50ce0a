import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  id = (await addAnnotation(t, { commentData: [{ commentText: 'x', from: { userId: 'ann' }, triggerActivities: false }] })).annotationId;
});
afterAll(() => t.close());

const get = async () => (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [id] })).body.result.data[0];

describe('/v2/commentannotations/update', () => {
  it('changes status and assignment, recording comment.statusChange and comment.assign', async () => {
    const res = await t.callK('/v2/commentannotations/update', {
      organizationId: 'acme',
      annotationIds: [id, 'ghost'],
      actionUser: { userId: 'bob', name: 'Bob' },
      updatedData: { status: { id: 'RESOLVED', name: 'Resolved' }, assignedTo: { userId: 'cat', name: 'Cat' }, priority: 'high', context: { k: 1 }, location: { id: 'L9' }, resolvedByUserId: 'bob' },
    });
    expect(res.body.result).toEqual({ status: 'success', message: 'Annotations updated successfully.', data: { [id]: { success: true, message: 'Updated Successfully' }, ghost: { success: false, message: 'Annotation not found.' } } });
    expect(await get()).toMatchObject({ status: { id: 'RESOLVED', name: 'Resolved' }, assignedTo: { userId: 'cat', name: 'Cat' }, priority: 'high', context: { k: 1 }, locationId: 'L9', resolvedByUserId: 'bob' });
    const activities = await activitiesOf(t, id);
    expect(activities.map((a) => [a.actionType, a.changes, a.actionUser.userId])).toEqual([
      ['comment.statusChange', { status: { from: 'OPEN', to: 'RESOLVED' } }, 'bob'],
      ['comment.assign', { assignedTo: { from: null, to: 'cat' } }, 'bob'],
    ]);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect((await t.callK('/v2/commentannotations/update', { organizationId: 'acme', annotationIds: [id], updatedData: {} })).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'updatedData must change at least one field.' });
    expect((await t.callK('/v2/commentannotations/update', { organizationId: 'acme', annotationIds: [id], updatedData: { visibility: { type: 'restricted' } } })).body.error.status).toBe('FAILED_PRECONDITION');
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/commentannotations/update', { organizationId: 'acme', annotationIds: [id], updatedData: { priority: 'low' } }, other.headersK);
    expect(res.body.result.data[id].success).toBe(false);
    expect((await get()).priority).toBe('high');
  });
});
