// engine.snapshot on PostgreSQL (server/db/engine.ts): the statements of one view read one instant, as SQLite's do
// (test/unit/storage-engine.test.ts), though another unit of work commits between them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Q } from '../../server/db/engine.ts';
import { organizationsRepo } from '../../server/db/repos/organizations.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const row = (id: string) => ({ id, name: id, disabled: false, metadata: {}, createdAt: 1, updatedAt: 1 });

describe('snapshot reads on PostgreSQL', () => {
  it('read one instant though a write commits between their statements; plain reads see the write', async () => {
    const { pg, k1 } = both;
    const organizations = organizationsRepo(pg);
    const count = async (db: Q) => (await db.select({ id: pg.t.organizations.id }).from(pg.t.organizations)).length;
    await organizations.insert(k1, row('s1'));
    const plain = await pg.read(async (db) => {
      const before = await count(db);
      await organizations.insert(k1, row('s2'));
      return [before, await count(db)];
    });
    expect((plain[1] as number) - (plain[0] as number)).toBe(1);
    // another request's write: started outside the snapshot (a write made inside it would join its unit of work)
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const other = gate.then(() => organizations.insert(k1, row('s3')));
    const held = await pg.snapshot(async (db) => {
      const before = await count(db);
      open();
      await other;
      return [before, await count(db)];
    });
    expect(held[1]).toBe(held[0]);
    expect(await pg.snapshot(count)).toBe((held[0] as number) + 1);
  });
});
