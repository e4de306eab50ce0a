// The groups repository on PostgreSQL answers as on SQLite (see organizations.test.ts): the same calls on both
// engines, every answer compared, and the answers checked for what they should be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupsRepo, type GroupsRepo } from '../../server/db/repos/groups.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  await both.insertOrganizations([
    ['k1', 'o1'],
    ['k1', 'o2'],
    ['k2', 'o1'],
  ] as const);
});
afterAll(() => both?.close());

const group = (id: string) => ({ id, name: `Group ${id}`, createdAt: 1_700_000_000_000 });

describe('groups', () => {
  it('answers every call as on SQLite: exists, insert or ignore, members added, removed one by one, by user and all at once, tenant isolation', async () => {
    const { k1, k2 } = both;
    const many = Array.from({ length: 1500 }, (_, i) => `user-${String(i).padStart(4, '0')}`);
    const answers = await onBoth<GroupsRepo>(both.storage.groups, groupsRepo(both.pg), async (repo) => [
      await repo.exists(k1, 'o1', 'g1'),
      await repo.insert(k1, 'o1', [group('g1'), group('g2'), group('g1')]),
      await repo.insert(k1, 'o1', [group('g1'), group('g3')]),
      await repo.insert(k1, 'o2', [group('g1')]),
      await repo.insert(k2, 'o1', [group('g1')]),
      await repo.insert(k1, 'o1', []),
      await repo.exists(k1, 'o1', 'g1'),
      await repo.exists(k1, 'o1', 'missing'),
      await repo.exists(k2, 'o2', 'g1'),
      // '～' (U+FF5E) sorts before '😀' (U+1F600) in code point order, after it in UTF-16 units
      await repo.addMembers(k1, 'o1', 'g1', ['zoë', '😀', 'Bob', 'alice', 'alice', '～'], 1_700_000_000_001),
      await repo.addMembers(k1, 'o1', 'g1', ['alice', 'carol'], 1_700_000_000_002),
      await repo.addMembers(k1, 'o1', 'g2', ['alice', 'dave'], 1_700_000_000_002),
      await repo.addMembers(k1, 'o2', 'g1', ['alice'], 1_700_000_000_002),
      await repo.addMembers(k2, 'o1', 'g1', ['alice'], 1_700_000_000_002),
      await repo.addMembers(k1, 'o1', 'g1', [], 1_700_000_000_002),
      await repo.addMembers(k1, 'o1', 'g3', many, 1_700_000_000_002),
      await repo.removeMembers(k1, 'o1', 'g1', ['Bob', 'missing', 'Bob']),
      await repo.removeMembers(k2, 'o1', 'g1', ['zoë']),
      await repo.removeMembers(k1, 'o1', 'g1', []),
      await repo.removeUser(k1, 'o1', 'alice'),
      await repo.removeUser(k1, 'o1', 'nobody'),
      await repo.removeAll(k1, 'o1', 'g1'),
      await repo.removeAll(k1, 'o1', 'g1'),
      await repo.removeAll(k1, 'o1', 'g2'),
      await repo.removeAll(k1, 'o2', 'g1'),
      await repo.removeAll(k2, 'o1', 'g1'),
      await repo.removeAll(k1, 'o1', 'missing'),
      await repo.removeAll(k1, 'o1', 'g3'),
      await repo.exists(k1, 'o1', 'g1'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBe(false);
    expect(s[1]).toEqual([true, true, false]);
    expect(s[2]).toEqual([false, true]);
    expect(s[3]).toEqual([true]);
    expect(s[4]).toEqual([true]);
    expect(s[5]).toEqual([]);
    expect(s.slice(6, 9)).toEqual([true, false, false]);
    expect(s[16]).toEqual([true, false, false]);
    expect(s[17]).toEqual([false]);
    expect(s[21]).toEqual(['carol', 'zoë', '～', '😀']);
    expect(s[22]).toEqual([]);
    expect(s[23]).toEqual(['dave']);
    expect(s[24]).toEqual(['alice']);
    expect(s[25]).toEqual(['alice']);
    expect(s[26]).toEqual([]);
    expect(s[27]).toEqual(many);
    expect(s[28]).toBe(true);
  });
});
