// A repository ported to PostgreSQL answers as its SQLite original does: the same calls, in the same order, on
// both engines, and every answer compared (the port's contract is the SQLite repository's type; this proves its
// behaviour). Each ported repository has a file like this one (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationsRepo, type OrganizationsRepo } from '../../server/db/repos/organizations.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

describe('organizations', () => {
  it('answers every call as on SQLite: find, insert, update, pages, tenant isolation, delete', async () => {
    const { k1, k2 } = both;
    const row = (id: string, name: string) => ({
      id,
      name,
      disabled: false,
      metadata: { team: name, nested: { z: 1, a: [true, null] } },
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
    });
    const answers = await onBoth<OrganizationsRepo>(both.storage.organizations, organizationsRepo(both.pg), async (repo) => [
      await repo.find(k1, 'acme'),
      await repo.insert(k1, row('acme', 'Acme')),
      await repo.insert(k1, row('Zeta', 'Zeta')),
      await repo.insert(k1, row('beta', 'Beta')),
      await repo.insert(k2, row('acme', 'Other tenant')),
      await repo.find(k1, 'acme'),
      await repo.update(k1, 'acme', { name: 'Acme Inc', metadata: { b: 2, a: 1 }, updatedAt: 1_700_000_000_001 }),
      await repo.update(k1, 'missing', { name: 'x' }),
      await repo.find(k1, 'acme'),
      // code point order: 'Zeta' before 'acme' before 'beta'
      await repo.page(k1, { limit: 10 }),
      await repo.page(k1, { limit: 1, after: 'Zeta' }),
      await repo.page(k1, { limit: 10, ids: ['beta', 'acme', 'nope'] }),
      await repo.page(k2, { limit: 10 }),
      await repo.delete(k1, 'acme'),
      await repo.delete(k1, 'acme'),
      await repo.find(k1, 'acme'),
      await repo.find(k2, 'acme'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    // and each answer is what it should be, not only the same on both
    expect(answers.sqlite[0]).toBeUndefined();
    expect((answers.sqlite[9] as Array<{ id: string }>).map((o) => o.id)).toEqual(['Zeta', 'acme', 'beta']);
    expect(answers.sqlite.slice(13, 15)).toEqual([true, false]);
    // JSON comes back as it was written, key order included
    expect(JSON.stringify((answers.pg[8] as { metadata: unknown }).metadata)).toBe('{"b":2,"a":1}');
  });
});
