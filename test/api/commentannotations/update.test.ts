import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activitiesOf, addAnnotation } from '../../helpers/comments.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const PATH = '/v2/commentannotations/update';
let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let id: string;
let second: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  id = (await addAnnotation(t, { location: { id: 'L1', locationName: 'One' }, commentData: [{ commentText: 'x', from: { userId: 'ann', name: 'Ann' }, triggerActivities: false }] })).annotationId;
  second = (await addAnnotation(t, { commentData: [{ commentText: 'y', from: { userId: 'dan' }, triggerActivities: false }] })).annotationId;
  other = await createWorkspace(t);
});
afterAll(() => t.close());

const update = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: 'acme', annotationIds: [id], ...data }, headers);
const get = async (annotationId = id) => (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [annotationId] })).body.result.data[0];

describe('/v2/commentannotations/update', () => {
  it('changes the status, recording comment.statusChange with changes {status: {from, to}}', async () => {
    const before = await get();
    const res = await update({ annotationIds: [id, 'ghost'], actionUser: { userId: 'bob', name: 'Bob' }, updatedData: { status: { id: 'RESOLVED', name: 'Resolved', type: 'default' } } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ status: 'success', message: 'Annotations updated successfully.', data: { [id]: { success: true, message: 'Updated Successfully' }, ghost: { success: false, message: 'Annotation not found.' } } });
    const after = await get();
    expect(after.status).toEqual({ id: 'RESOLVED', name: 'Resolved', type: 'default' });
    expect(after.lastUpdated).toBeGreaterThanOrEqual(before.lastUpdated);
    // nothing else changed
    expect({ ...after, status: null, lastUpdated: null }).toEqual({ ...before, status: null, lastUpdated: null });
    expect(await activitiesOf(t, id)).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.statusChange',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        targetSubEntityId: null,
        changes: { status: { from: 'OPEN', to: 'RESOLVED' } },
        displayMessageTemplate: '{{actionUser}} changed the status to {{status}}',
        displayMessageTemplateData: { actionUser: 'Bob', status: 'Resolved' },
        metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
      }),
    ]);
    // filtering by the new status finds it
    expect((await t.callK('/v2/commentannotations/get', { organizationId: 'acme', statusIds: ['RESOLVED'] })).body.result.data.map((a: any) => a.annotationId)).toEqual([id]);
  });

  it('records no activity when the status id does not change; without actionUser the author acts', async () => {
    const count = (await activitiesOf(t, id)).length;
    expect((await update({ updatedData: { status: { id: 'RESOLVED', name: 'Done' } } })).body.result.data[id].success).toBe(true);
    expect((await get()).status).toEqual({ id: 'RESOLVED', name: 'Done' });
    expect(await activitiesOf(t, id)).toHaveLength(count);

    await update({ updatedData: { status: { id: 'OPEN' } } });
    const last = (await activitiesOf(t, id)).filter((a) => a.changes?.status?.to === 'OPEN');
    expect(last.map((a) => [a.actionType, a.actionUser, a.changes, a.displayMessageTemplateData])).toEqual([
      ['comment.statusChange', { userId: 'ann' }, { status: { from: 'RESOLVED', to: 'OPEN' } }, { actionUser: 'ann', status: 'OPEN' }],
    ]);
  });

  it('assigns, recording comment.assign with changes {assignedTo: {from, to}}; the same assignee or unassigning records nothing', async () => {
    const assigns = async () => (await activitiesOf(t, id)).filter((a) => a.actionType === 'comment.assign');
    await update({ actionUser: { userId: 'bob', name: 'Bob' }, updatedData: { assignedTo: { userId: 'cat', name: 'Cat' } } });
    expect((await get()).assignedTo).toEqual({ userId: 'cat', name: 'Cat' });
    expect(await assigns()).toEqual([
      expect.objectContaining({
        featureType: 'comment',
        actionType: 'comment.assign',
        actionUser: { userId: 'bob', name: 'Bob' },
        targetEntityId: id,
        changes: { assignedTo: { from: null, to: 'cat' } },
        displayMessageTemplate: '{{actionUser}} assigned the comment to {{assignee}}',
        displayMessageTemplateData: { actionUser: 'Bob', assignee: 'Cat' },
      }),
    ]);
    await update({ updatedData: { assignedTo: { userId: 'cat', name: 'Cat again' } } });
    expect((await get()).assignedTo).toEqual({ userId: 'cat', name: 'Cat again' });
    expect(await assigns()).toHaveLength(1);

    await update({ actionUser: { userId: 'bob' }, updatedData: { assignedTo: { userId: 'dan' } } });
    expect((await assigns()).map((a) => [a.changes, a.displayMessageTemplateData])).toContainEqual([{ assignedTo: { from: 'cat', to: 'dan' } }, { actionUser: 'bob', assignee: 'dan' }]);
    expect(await assigns()).toHaveLength(2);

    await update({ updatedData: { assignedTo: null } });
    expect((await get()).assignedTo).toBeNull();
    expect(await assigns()).toHaveLength(2);
  });

  it('updates priority, context, location and resolvedByUserId on several annotations at once, reporting each once', async () => {
    const res = await update({ annotationIds: [id, second, id], updatedData: { priority: 'high', context: { k: 1 }, location: { id: 'L9', locationName: 'Nine' }, resolvedByUserId: 'bob' } });
    expect(res.body.result.data).toEqual({ [id]: { success: true, message: 'Updated Successfully' }, [second]: { success: true, message: 'Updated Successfully' } });
    for (const annotationId of [id, second]) {
      expect(await get(annotationId)).toMatchObject({ priority: 'high', context: { k: 1 }, location: { id: 'L9', locationName: 'Nine' }, locationId: 'L9', resolvedByUserId: 'bob' });
    }
    expect((await t.callK('/v2/commentannotations/get', { organizationId: 'acme', locationIds: ['L1'] })).body.result.data).toEqual([]);
    await update({ updatedData: { resolvedByUserId: null } });
    expect((await get()).resolvedByUserId).toBeNull();
    expect((await get(second)).resolvedByUserId).toBe('bob');
    // none of these are status or assignment changes
    expect((await activitiesOf(t, second)).map((a) => a.actionType)).toEqual([]);
  });

  it('restricted visibility needs enablePrivateComments; then the annotation is hidden from readers not named', async () => {
    const refused = await update({ updatedData: { visibility: { type: 'restricted', userIds: ['bob'] } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ status: 'FAILED_PRECONDITION', message: 'Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.' });
    expect((await get()).visibility).toEqual({ type: 'public' });

    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    expect((await update({ updatedData: { visibility: { type: 'restricted', userIds: ['bob'] } } })).status).toBe(200);
    expect((await get()).visibility).toEqual({ type: 'restricted', userIds: ['bob'] });
    const readerSees = async (userId: string) => (await t.callK('/v2/commentannotations/get', { organizationId: 'acme', annotationIds: [id], userId })).body.result.data.length;
    expect([await readerSees('bob'), await readerSees('ann'), await readerSees('cat')]).toEqual([1, 1, 0]);
    await update({ updatedData: { visibility: { type: 'public' } } });
    expect((await get()).visibility).toEqual({ type: 'public' });
    expect(await readerSees('cat')).toBe(1);
  });

  it('validates the input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ updatedData: {} }, 'updatedData must change at least one field.'],
      [{ updatedData: { unknownField: 1 } }, 'updatedData must change at least one field.'],
      [{ updatedData: undefined }, 'updatedData is required.'],
      [{ annotationIds: undefined, updatedData: { priority: 1 } }, 'annotationIds is required.'],
      [{ annotationIds: [], updatedData: { priority: 1 } }, 'annotationIds must have at least 1 item(s).'],
      [{ organizationId: undefined, updatedData: { priority: 1 } }, 'organizationId is required.'],
      [{ updatedData: { status: {} } }, 'updatedData.status.id is required.'],
      [{ updatedData: { assignedTo: {} } }, 'updatedData.assignedTo.userId is required.'],
      [{ updatedData: { location: {} } }, 'updatedData.location.id is required.'],
      [{ updatedData: { visibility: { type: 'hidden' } } }, 'updatedData.visibility.type must be one of: public, restricted.'],
      [{ updatedData: { resolvedByUserId: '' } }, 'updatedData.resolvedByUserId must not be empty.'],
      [{ actionUser: {}, updatedData: { priority: 1 } }, 'actionUser.userId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await update(data);
      expect({ data, status: res.status, body: res.body }).toEqual({ data, status: 400, body: { error: { status: 'INVALID_ARGUMENT', message } } });
    }
  });

  it("cannot change another API key's annotations", async () => {
    const before = await get();
    const count = (await activitiesOf(t, id)).length;
    const res = await update({ updatedData: { priority: 'low', status: { id: 'REJECTED' }, assignedTo: { userId: 'x' } } }, other.headersK);
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ [id]: { success: false, message: 'Annotation not found.' } });
    expect(await get()).toEqual(before);
    expect(await activitiesOf(t, id)).toHaveLength(count);
  });
});
