import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
const all: Array<{ id: string; documentId: string; featureType: string; actionType: string; userId: string; target: string }> = [];
const FEATURES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'];
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme' }] });
  for (let batch = 0; batch < 4; batch++) {
    for (const documentId of ['d1', 'd2']) {
      const activities = Array.from({ length: 10 }, (_, i) => {
        const n = all.length;
        const featureType = FEATURES[n % 5]!;
        const record = {
          id: `a${String(n).padStart(3, '0')}`,
          documentId,
          featureType,
          actionType: `${featureType}.${n % 2 ? 'add' : 'delete'}`,
          userId: n % 3 ? 'ann' : 'bob',
          target: `t${n % 4}`,
        };
        all.push(record);
        void i;
        return { id: record.id, featureType, actionType: record.actionType, actionUser: { userId: record.userId }, targetEntityId: record.target };
      });
      await t.callK('/v2/activities/add', { organizationId: 'acme', documentId, activities });
    }
  }
});
afterAll(() => t.close());

async function walk(filters: Record<string, unknown>, pageSize: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const res = await t.callK('/v2/activities/get', { organizationId: 'acme', ...filters, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Activity(s) retrieved successfully.');
    seen.push(...dataOf<Array<{ id: string }>>(res).map((a) => a.id));
    pageToken = resultOf(res).pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

/** Expected ids for a filter, newest first: ids grow with time, equal timestamps break ties by id. */
const expected = (keep: (a: (typeof all)[number]) => boolean, order: 'asc' | 'desc' = 'desc') => {
  const ids = all
    .filter(keep)
    .map((a) => a.id)
    .sort();
  return order === 'desc' ? ids.reverse() : ids;
};

describe('/v2/activities/get', () => {
  it('walks every record exactly once with page sizes 1, 7 and 1000, both orders', async () => {
    for (const size of [1, 7, 1000]) expect(await walk({}, size)).toEqual(expected(() => true));
    expect(await walk({ order: 'asc' }, 9)).toEqual(expected(() => true, 'asc'));
  });

  it('applies each filter and their combinations', async () => {
    expect(await walk({ documentId: 'd2' }, 5)).toEqual(expected((a) => a.documentId === 'd2'));
    expect(await walk({ targetEntityId: 't1' }, 5)).toEqual(expected((a) => a.target === 't1'));
    expect(await walk({ userId: 'bob' }, 5)).toEqual(expected((a) => a.userId === 'bob'));
    expect(await walk({ featureTypes: ['comment', 'crdt'] }, 5)).toEqual(expected((a) => a.featureType === 'comment' || a.featureType === 'crdt'));
    expect(await walk({ actionTypes: ['reaction.add', 'custom.delete'] }, 5)).toEqual(
      expected((a) => a.actionType === 'reaction.add' || a.actionType === 'custom.delete'),
    );
    expect(await walk({ activityIds: ['a001', 'a005', 'zzz'] }, 5)).toEqual(['a005', 'a001']);
    expect(await walk({ documentId: 'd1', userId: 'ann', featureTypes: ['comment'] }, 2)).toEqual(
      expected((a) => a.documentId === 'd1' && a.userId === 'ann' && a.featureType === 'comment'),
    );
  });

  it('validates featureTypes and pageSize', async () => {
    expect(errorOf(await t.callK('/v2/activities/get', { organizationId: 'acme', featureTypes: ['poll'] })).message).toBe(
      'featureTypes[0] must be one of: comment, reaction, recorder, crdt, custom.',
    );
    expect(errorOf(await t.callK('/v2/activities/get', { organizationId: 'acme', pageSize: 0 })).message).toBe('pageSize must be at least 1.');
    expect(errorOf(await t.callK('/v2/activities/get', {})).message).toBe('organizationId is required.');
  });

  it('refuses forged and foreign page tokens', async () => {
    const token = resultOf(await t.callK('/v2/activities/get', { organizationId: 'acme', pageSize: 3 })).pageToken;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) =>
      expect(errorOf(await t.callK('/v2/activities/get', { organizationId: 'acme', pageSize: 3, ...data }, headers))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'Invalid pageToken.',
      });
    await bad({ pageToken: token!.slice(0, -2) });
    await bad({ pageToken: token, documentId: 'd1' });
    const other = await createWorkspace(t);
    await bad({ pageToken: token }, other.headersK);
  });

  it("shows nothing of another API key's records", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/activities/get', { organizationId: 'acme' }, other.headersK);
    expect(dataOf(res)).toEqual([]);
  });
});
