// The users repository answers alike on PostgreSQL and on SQLite (see organizations.test.ts): the same calls on both
// engines, every answer compared, and the answers checked for what they should be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UserRow, type UsersRepo, type UserWrite, usersRepo } from '../../server/db/repos/users.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const user = (id: string, change: Partial<UserWrite['row']> = {}): UserWrite['row'] => ({
  id,
  internalId: `internal-${id}`,
  name: `Name ${id}`,
  email: `${id}@x.test`,
  initial: id.slice(0, 1).toUpperCase(),
  photoUrl: null,
  metadata: { z: 1, a: { nested: [id, null, true] } },
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...change,
});
const insert = (row: UserWrite['row']): UserWrite => ({ row, insert: true });
const update = (row: UserWrite['row']): UserWrite => ({ row, insert: false });
/** A map's entries in order (toEqual alone would not compare the order). */
const entries = (map: Map<string, UserRow>) => [...map.entries()];

describe('users', () => {
  it('answers every call as on SQLite: find, findMany, save in order (inserts, updates, the same id twice), metadata, tenant isolation', async () => {
    const { k1, k2 } = both;
    const many = Array.from({ length: 1200 }, (_, i) => user(`u${String(i).padStart(4, '0')}`));
    const answers = await onBoth<UsersRepo>(both.storage.users, usersRepo(both.pg), async (repo) => [
      await repo.find(k1, 'alice'),
      await repo.save(k1, [
        insert(user('alice')),
        insert(user('Bob', { name: null, email: null, initial: null, photoUrl: 'https://p.test/b' })),
        insert(user('zoë')),
      ]),
      await repo.save(k2, [insert(user('alice', { name: 'Other tenant' }))]),
      await repo.save(k1, []),
      // an update, an insert, the same id updated again (the later write wins), an update of a profile not there
      await repo.save(k1, [
        update(user('alice', { name: 'First', updatedAt: 1_700_000_000_001 })),
        insert(user('carol')),
        update(user('alice', { name: 'Second', metadata: { second: 2, first: 1 }, updatedAt: 1_700_000_000_002 })),
        update(user('nobody')),
        insert(user('dave', { metadata: {} })),
      ]),
      await repo.find(k1, 'alice'),
      await repo.find(k1, 'Bob'),
      await repo.find(k2, 'alice'),
      await repo.find(k2, 'Bob'),
      await repo.find(k1, 'nobody'),
      entries(await repo.findMany(k1, ['zoë', 'missing', 'carol', 'alice', 'Bob', 'alice'])),
      entries(await repo.findMany(k1, [])),
      entries(await repo.findMany(k2, ['alice', 'Bob'])),
      await repo.setMetadata(k1, 'carol', { b: [1, 2], a: 'x' }, 1_700_000_000_003),
      await repo.setMetadata(k1, 'missing', { a: 1 }, 1_700_000_000_003),
      await repo.setMetadata(k2, 'carol', { a: 1 }, 1_700_000_000_003),
      await repo.find(k1, 'carol'),
      // users/add's size: a thousand and more profiles in one call, inserted then changed
      await repo.save(k1, many.map(insert)),
      await repo.save(
        k1,
        many.map((row) => update({ ...row, name: `Changed ${row.id}` })),
      ),
      (
        await repo.findMany(
          k1,
          many.map((row) => row.id),
        )
      ).size,
      await repo.find(k1, 'u1199'),
      // JSON text keeps what JavaScript's JSON writes for a lone surrogate (its escape), on insert and on update
      await repo.save(k1, [insert(user('lone', { metadata: { s: 'a\ud800b', t: '\udc00' } }))]),
      await repo.find(k1, 'lone'),
      await repo.save(k1, [update(user('lone', { metadata: { u: 'x\udbffy' } }))]),
      await repo.find(k1, 'lone'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[5]).toEqual({ ...user('alice', { name: 'Second', metadata: { second: 2, first: 1 }, updatedAt: 1_700_000_000_002 }), apiKeyId: 'k1' });
    expect(s[6]).toMatchObject({ name: null, email: null, initial: null, photoUrl: 'https://p.test/b' });
    expect(s[7]).toMatchObject({ name: 'Other tenant', apiKeyId: 'k2' });
    expect(s[8]).toBeUndefined();
    expect(s[9]).toBeUndefined();
    expect((s[10] as Array<[string, UserRow]>).map(([id]) => id)).toEqual(['Bob', 'alice', 'carol', 'zoë']);
    expect(s[11]).toEqual([]);
    expect((s[12] as Array<[string, UserRow]>).map(([id, row]) => [id, row.name])).toEqual([['alice', 'Other tenant']]);
    expect(s[16]).toMatchObject({ metadata: { b: [1, 2], a: 'x' }, updatedAt: 1_700_000_000_003 });
    expect(s[19]).toBe(1200);
    expect(s[20]).toMatchObject({ name: 'Changed u1199' });
    expect(s[22]).toMatchObject({ metadata: { s: 'a\ud800b', t: '\udc00' } });
    expect(s[24]).toMatchObject({ metadata: { u: 'x\udbffy' } });
    // JSON comes back as it was written, key order included
    expect(JSON.stringify((answers.pg[5] as UserRow).metadata)).toBe('{"second":2,"first":1}');
    expect(JSON.stringify((answers.pg[16] as UserRow).metadata)).toBe('{"b":[1,2],"a":"x"}');
    expect(JSON.stringify((answers.pg[6] as UserRow).metadata)).toBe('{"z":1,"a":{"nested":["Bob",null,true]}}');
  });
});
