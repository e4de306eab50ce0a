import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Q } from '../../server/db/engine.ts';
import { openStorage, sqliteEngineOf } from '../../server/db/repos/index.ts';
import { sqliteDialect } from '../../server/db/storage.ts';
import { tenantScope } from '../../server/db/scope.ts';

const dir = mkdtempSync(join(tmpdir(), 'hearth-storage-'));
const storage = openStorage(dir);
const opened = sqliteEngineOf(storage).main;
// the key the rows belong to (organizations reference api_keys)
opened.sqlite.exec(
  "INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES ('w', 'w', 'o', 'o@example.com', 'x', 'x')",
);
opened.sqlite.exec(
  "INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES ('k', 'w', 'k', 'testing', 'o@example.com', '[]', '{}')",
);
const scope = tenantScope('k', 'w');
afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const row = (id: string) => ({ id, name: id, disabled: false, metadata: {}, createdAt: 1, updatedAt: 1 });
const visible = async (ids: string[]) => (await storage.organizations.page(scope, { ids, limit: 1000 })).map((r) => r.id).sort();

describe('units of work on the shared SQLite database', () => {
  it('are invisible to other requests until they commit, though they await between their statements', async () => {
    const seen: string[][] = [];
    let done = false;
    const writer = storage.transaction(async () => {
      for (const id of ['a1', 'a2', 'a3', 'a4']) {
        await storage.organizations.insert(scope, row(id));
        await turn(); // other requests' code runs here
      }
      // the unit of work reads its own writes
      expect(await visible(['a1', 'a2', 'a3', 'a4'])).toEqual(['a1', 'a2', 'a3', 'a4']);
    });
    const reader = (async () => {
      while (!done) {
        seen.push(await visible(['a1', 'a2', 'a3', 'a4']));
        await turn();
      }
    })();
    await writer;
    done = true;
    await reader;
    // many looks while it ran, and never a part of it
    expect(seen.length).toBeGreaterThan(3);
    for (const look of seen) expect([0, 4]).toContain(look.length);
    expect(await visible(['a1', 'a2', 'a3', 'a4'])).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('take turns: a second writer waits for the first and never writes inside it; a failed one leaves nothing', async () => {
    const order: string[] = [];
    const failing = storage.transaction(async () => {
      await storage.organizations.insert(scope, row('b1'));
      order.push('first wrote');
      await turn();
      await turn();
      order.push('first fails');
      throw new Error('no');
    });
    const second = storage.transaction(async () => {
      order.push('second starts');
      await storage.organizations.insert(scope, row('b2'));
    });
    // a write outside any unit of work is one of its own, and waits its turn too
    const lone = storage.organizations.insert(scope, row('b3')).then(() => order.push('lone wrote'));
    await expect(failing).rejects.toThrow('no');
    await second;
    await lone;
    expect(order.slice(0, 2)).toEqual(['first wrote', 'first fails']);
    expect(await visible(['b1', 'b2', 'b3'])).toEqual(['b2', 'b3']);
  });

  it('nest: an inner unit of work is a savepoint, rolled back alone', async () => {
    await storage.transaction(async () => {
      await storage.organizations.insert(scope, row('c1'));
      await expect(
        storage.transaction(async () => {
          await storage.organizations.insert(scope, row('c2'));
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await storage.organizations.insert(scope, row('c3'));
    });
    expect(await visible(['c1', 'c2', 'c3'])).toEqual(['c1', 'c3']);
  });

  it('run what waits for a commit after it, with the rows visible, before the next unit of work; never after a rollback', async () => {
    const seen: string[] = [];
    // a unit that awaits between its steps (an import's chunks): what it registers waits for its commit
    const first = storage.transaction(async () => {
      await storage.organizations.insert(scope, row('d1'));
      storage.afterCommit(() => void visible(['d1']).then((ids) => seen.push(`d1 visible: ${ids.join()}`)));
      storage.afterCommit(() => seen.push('first committed'));
      await turn();
      seen.push('first still running');
    });
    const second = storage.transaction(async () => {
      seen.push('second began');
    });
    await Promise.all([first, second]);
    await turn();
    expect(seen).toEqual(['first still running', 'first committed', 'second began', 'd1 visible: d1']);
    await expect(
      storage.transaction(async () => {
        storage.afterCommit(() => seen.push('rolled back'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    storage.afterCommit(() => seen.push('outside a unit: at once'));
    expect(seen.slice(4)).toEqual(['outside a unit: at once']);
  });
});

describe('snapshot reads (engine.snapshot, for views of several statements)', () => {
  const one = sqliteDialect(sqliteEngineOf(storage));
  const count = async (db: Q) => (await db.select({ id: one.t.organizations.id }).from(one.t.organizations)).length;

  it('read one instant though a write commits between their statements; plain reads see the write', async () => {
    await storage.organizations.insert(scope, row('s1'));
    const plain = await one.read(async (db) => {
      const before = await count(db);
      await storage.organizations.insert(scope, row('s2'));
      return [before, await count(db)];
    });
    // the test's own check: without a snapshot the second statement sees the commit
    expect((plain[1] as number) - (plain[0] as number)).toBe(1);
    const held = await one.snapshot(async (db) => {
      const before = await count(db);
      await storage.organizations.insert(scope, row('s3'));
      await turn();
      return [before, await count(db)];
    });
    expect(held[1]).toBe(held[0]);
    // and the next snapshot starts after that commit
    expect(await one.snapshot(count)).toBe((held[0] as number) + 1);
  });

  it('run one at a time, a failed one leaving the connection usable, and inside a unit of work read its writes', async () => {
    await expect(
      one.snapshot(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const answers = await Promise.all([one.snapshot(count), one.snapshot(count)]);
    expect(answers[0]).toBe(answers[1]);
    await storage
      .transaction(async () => {
        await storage.organizations.insert(scope, row('s4'));
        expect(await one.snapshot(count)).toBe((answers[0] as number) + 1);
        throw new Error('undo');
      })
      .catch(() => undefined);
    expect(await one.snapshot(count)).toBe(answers[0]);
  });
});
