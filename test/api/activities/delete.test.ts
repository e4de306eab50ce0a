import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
afterAll(() => t?.close());
beforeEach(async () => {
  await t?.close();
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
  const add = (documentId: string, id: string, target: string) =>
    t.callK('/v2/activities/add', {
      organizationId: 'acme',
      documentId,
      activities: [{ id, featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'u' }, targetEntityId: target }],
    });
  await add('d1', 'a', 't1');
  await add('d1', 'b', 't2');
  await add('d2', 'c', 't1');
});

const remaining = async () =>
  dataOf<Array<{ id: string }>>(await t.callK('/v2/activities/get', { organizationId: 'acme', order: 'asc' }))
    .map((a) => a.id)
    .sort();

describe('/v2/activities/delete', () => {
  it('deletes by ids with per-id outcomes', async () => {
    const res = await t.callK('/v2/activities/delete', { organizationId: 'acme', activityIds: ['a', 'zzz'] });
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Activity(s) deleted successfully.',
      data: { a: { success: true, message: 'Activity deleted.' }, zzz: { success: false, message: 'Failed to delete activity.' } },
    });
    expect(await remaining()).toEqual(['b', 'c']);
  });

  it('deletes by document and by target entity, combined', async () => {
    await t.callK('/v2/activities/delete', { organizationId: 'acme', documentId: 'd1', targetEntityId: 't1' });
    expect(await remaining()).toEqual(['b', 'c']);
    await t.callK('/v2/activities/delete', { organizationId: 'acme', targetEntityId: 't1' });
    expect(await remaining()).toEqual(['b']);
  });

  it('needs at least one filter besides the organization', async () => {
    expect(errorOf(await t.callK('/v2/activities/delete', { organizationId: 'acme' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Pass at least one of documentId, targetEntityId or activityIds.',
    });
    expect(await remaining()).toEqual(['a', 'b', 'c']);
  });

  it("cannot delete another API key's records", async () => {
    const other = await createWorkspace(t);
    await t.callPublic('/v2/activities/delete', { organizationId: 'acme', documentId: 'd1' }, other.headersK);
    expect(await remaining()).toEqual(['a', 'b', 'c']);
  });
});
