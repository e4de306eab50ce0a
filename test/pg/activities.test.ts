// The activities repository, written once, answers on PostgreSQL as on SQLite (see organizations.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivitiesRepo, type ActivityFilters, type ActivityRow, activitiesRepo } from '../../server/db/repos/activities.ts';
import { organizationsRepo } from '../../server/db/repos/organizations.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  const org = (id: string) => ({ id, name: id, disabled: false, metadata: {}, createdAt: T, updatedAt: T });
  for (const repo of [both.storage.organizations, organizationsRepo(both.pg)]) {
    await repo.insert(both.k1, org('o1'));
    await repo.insert(both.k1, org('o2'));
    await repo.insert(both.k2, org('o1'));
  }
});
afterAll(() => both?.close());

const T = 1_700_000_000_000;

type NewActivity = Omit<ActivityRow, 'apiKeyId'>;
const activity = (id: string, timestamp: number, extra: Partial<NewActivity> = {}): NewActivity => ({
  organizationId: 'o1',
  id,
  documentId: 'd1',
  featureType: 'comment',
  actionType: 'add',
  actionUser: { userId: 'u1', name: 'U One', email: 'u1@x.test' },
  actionUserId: 'u1',
  targetEntityId: 't1',
  targetSubEntityId: null,
  changes: { text: { from: 'a', to: 'b' }, aardvark: { to: 1 } },
  entityData: { z: [1, { y: null, b: true }], a: 'x' },
  entityTargetData: null,
  displayMessageTemplate: '{{user}} commented',
  displayMessageTemplateData: { user: 'U One' },
  actionIcon: null,
  resolver: false,
  timestamp,
  ...extra,
});

const ids = (rows: unknown) => (rows as ActivityRow[]).map((r) => r.id);

describe('activities', () => {
  it('answers every call as on SQLite: upsert, pages of every filter, keyset both ways, update, delete, tenant isolation', async () => {
    const { k1, k2 } = both;
    const f = (extra: Partial<ActivityFilters> = {}): ActivityFilters => ({ organizationId: 'o1', order: 'desc', ...extra });
    const answers = await onBoth<ActivitiesRepo>(both.storage.activities, activitiesRepo(both.pg), async (repo) => [
      await repo.upsert(k1, []),
      await repo.page(k1, f(), null, 10),
      await repo.upsert(k1, [
        activity('a1', T),
        activity('B2', T + 1, { featureType: 'reaction', actionType: 'delete', documentId: 'd2', targetEntityId: 't2' }),
        activity('a3', T + 1, { actionUserId: 'u2', actionUser: { userId: 'u2' }, resolver: true, changes: null, entityData: null }),
        activity('a4', T + 2, { featureType: 'crdt', documentId: null, targetEntityId: null, targetSubEntityId: 's1', entityTargetData: [1, 2] }),
        activity('a5', T + 3, { featureType: 'custom', actionType: 'custom-thing', actionIcon: 'star' }),
        // the same id twice in one call: the later one wins
        activity('a6', T + 4, { actionType: 'first' }),
        activity('a6', T + 4, { actionType: 'second', documentId: 'd2' }),
      ]),
      await repo.upsert(k1, [activity('a1', T, { organizationId: 'o2', actionType: 'other organization' })]),
      await repo.upsert(k2, [activity('a1', T, { actionType: 'other tenant' })]),
      // an existing id: every field is overwritten
      await repo.upsert(k1, [activity('a5', T + 5, { featureType: 'recorder', actionType: 'replaced', displayMessageTemplateData: { b: 1, a: 2 } })]),
      await repo.page(k1, f(), null, 10),
      await repo.page(k1, f({ order: 'asc' }), null, 10),
      await repo.page(k1, f(), null, 2),
      await repo.page(k1, f(), [T + 1, 'a3'], 10),
      await repo.page(k1, f({ order: 'asc' }), [T + 1, 'B2'], 2),
      await repo.page(k1, f({ documentId: 'd1' }), null, 10),
      await repo.page(k1, f({ targetEntityId: 't2' }), null, 10),
      await repo.page(k1, f({ userId: 'u2' }), null, 10),
      await repo.page(k1, f({ featureTypes: ['comment'] }), null, 10),
      await repo.page(k1, f({ featureTypes: ['reaction', 'crdt', 'recorder'] }), null, 10),
      await repo.page(k1, f({ actionTypes: ['delete', 'second'] }), null, 10),
      await repo.page(k1, f({ activityIds: ['a1', 'a4', 'nope'] }), null, 10),
      await repo.page(k1, f({ documentId: 'd1', userId: 'u1', featureTypes: ['comment'], actionTypes: ['add'], order: 'asc' }), [T, 'a1'], 10),
      await repo.page(k1, f({ featureTypes: [], actionTypes: [], activityIds: [] }), null, 3),
      await repo.page(k1, f({ organizationId: 'o2' }), null, 10),
      await repo.page(k2, f(), null, 10),
      await repo.update(k1, 'o1', [
        { id: 'a1', set: { actionIcon: 'pin', changes: { z: { to: 2 }, a: { from: 1 } } } },
        { id: 'a3', set: {} },
        { id: 'missing', set: { actionIcon: 'x' } },
        { id: 'missing', set: {} },
        { id: 'B2', set: { entityData: null, entityTargetData: { k: 'v' }, displayMessageTemplate: null } },
      ]),
      await repo.update(k2, 'o1', [{ id: 'a3', set: { actionIcon: 'x' } }]),
      await repo.page(k1, f({ activityIds: ['a1', 'B2', 'a3'] }), null, 10),
      await repo.page(k2, f(), null, 10),
      await repo.delete(k1, { organizationId: 'o1', activityIds: ['a6', 'a1', 'missing'] }),
      await repo.delete(k1, { organizationId: 'o1', activityIds: [] }),
      await repo.upsert(k1, [
        activity('a7', T + 9, { documentId: 'd2' }),
        activity('a0', T + 10, { documentId: 'd2' }),
        activity('a8', T, { documentId: 'd2' }),
        activity('a2', T + 8),
      ]),
      await repo.delete(k1, { organizationId: 'o1', documentId: 'd2' }),
      await repo.delete(k1, { organizationId: 'o1', targetEntityId: 't1', documentId: 'd1', activityIds: ['a5', 'a3', 'a2'] }),
      await repo.page(k1, f(), null, 10),
      await repo.delete(k2, { organizationId: 'o1', targetEntityId: 't1' }),
      await repo.page(k2, f(), null, 10),
      await repo.page(k1, f({ organizationId: 'o2' }), null, 10),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[1]).toEqual([]);
    expect(ids(s[6])).toEqual(['a5', 'a6', 'a4', 'a3', 'B2', 'a1']);
    expect(ids(s[7])).toEqual(['a1', 'B2', 'a3', 'a4', 'a6', 'a5']);
    expect(ids(s[8])).toEqual(['a5', 'a6']);
    expect(ids(s[9])).toEqual(['B2', 'a1']);
    expect(ids(s[10])).toEqual(['a3', 'a4']);
    expect(ids(s[11])).toEqual(['a5', 'a3', 'a1']);
    expect(ids(s[12])).toEqual(['B2']);
    expect(ids(s[13])).toEqual(['a3']);
    expect(ids(s[14])).toEqual(['a6', 'a3', 'a1']);
    expect(ids(s[15])).toEqual(['a5', 'a4', 'B2']);
    expect(ids(s[16])).toEqual(['a6', 'B2']);
    expect(ids(s[17])).toEqual(['a4', 'a1']);
    expect(ids(s[18])).toEqual([]);
    expect(ids(s[19])).toEqual(['a5', 'a6', 'a4']);
    expect((s[20] as ActivityRow[]).map((r) => r.actionType)).toEqual(['other organization']);
    expect((s[21] as ActivityRow[]).map((r) => r.actionType)).toEqual(['other tenant']);
    expect((s[6] as ActivityRow[])[1]).toMatchObject({ actionType: 'second', documentId: 'd2' });
    expect((s[6] as ActivityRow[])[0]).toMatchObject({ featureType: 'recorder', actionType: 'replaced', actionIcon: null, timestamp: T + 5 });
    expect(JSON.stringify((answers.pg[6] as ActivityRow[])[0]?.displayMessageTemplateData)).toBe('{"b":1,"a":2}');
    expect((s[6] as ActivityRow[])[3]).toMatchObject({ resolver: true, changes: null });
    expect(s[22]).toEqual([true, true, false, false, true]);
    expect(s[23]).toEqual([false]);
    expect(JSON.stringify((answers.pg[24] as ActivityRow[]).find((r) => r.id === 'a1')?.changes)).toBe('{"z":{"to":2},"a":{"from":1}}');
    expect((answers.pg[24] as ActivityRow[]).find((r) => r.id === 'a3')?.actionIcon).toBeNull();
    expect((s[25] as ActivityRow[])[0]?.actionIcon).toBeNull();
    expect(s[26]).toEqual(['a1', 'a6']);
    expect(s[27]).toEqual([]);
    expect(s[29]).toEqual(['a8', 'B2', 'a7', 'a0']);
    expect(s[30]).toEqual(['a3', 'a5', 'a2']);
    expect(ids(s[31])).toEqual(['a4']);
    expect(s[32]).toEqual(['a1']);
    expect(s[33]).toEqual([]);
    expect(ids(s[34])).toEqual(['a1']);
  });
});
