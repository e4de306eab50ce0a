import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
  await t.callK('/v2/activities/add', {
    organizationId: 'acme',
    documentId: 'd',
    activities: [{ id: 'a1', featureType: 'comment', actionType: 'comment.add', actionUser: { userId: 'ann' }, displayMessageTemplate: 'old' }],
  });
});
afterAll(() => t.close());

const get = async () => dataOf<Array<{ actionIcon?: string }>>(await t.callK('/v2/activities/get', { organizationId: 'acme', activityIds: ['a1'] }))[0];

describe('/v2/activities/update', () => {
  it('updates the updatable fields per id, reporting unknown ids', async () => {
    const res = await t.callK('/v2/activities/update', {
      organizationId: 'acme',
      activities: [
        {
          id: 'a1',
          changes: { text: { from: 'a', to: 'b' } },
          entityData: { k: 1 },
          entityTargetData: { j: 2 },
          displayMessageTemplate: '{{who}} edited',
          displayMessageTemplateData: { who: 'Ann' },
          actionIcon: 'pen',
        },
        { id: 'nope', actionIcon: 'x' },
      ],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Activity(s) updated successfully.',
      data: { a1: { success: true, message: 'Activity updated.' }, nope: { success: false, message: 'Failed to update activity.' } },
    });
    expect(await get()).toMatchObject({
      changes: { text: { from: 'a', to: 'b' } },
      entityData: { k: 1 },
      entityTargetData: { j: 2 },
      displayMessageTemplate: '{{who}} edited',
      displayMessageTemplateData: { who: 'Ann' },
      actionIcon: 'pen',
      actionType: 'comment.add',
    });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/activities/update', { organizationId: 'acme', activities: [{ actionIcon: 'x' }] })).message).toBe(
      'activities[0].id is required.',
    );
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/activities/update', { organizationId: 'acme', activities: [{ id: 'a1', actionIcon: 'hijack' }] }, other.headersK);
    expect(dataOf<Record<string, { success: boolean }>>(res).a1!.success).toBe(false);
    expect((await get())!.actionIcon).toBe('pen');
  });
});
