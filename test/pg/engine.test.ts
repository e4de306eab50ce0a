// The PostgreSQL engine (server/db/pg/engine.ts) against a real, throwaway PostgreSQL: the migrations generated
// from the one schema source apply (once, under a lock, however many instances start together), and units of work
// keep the SQLite engine's contract: one transaction per unit, savepoints inside, no partial write visible to
// anyone, SERIALIZABLE units retried when PostgreSQL refuses them, and a statement timeout on every connection.
import { readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { getTableConfig } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrentChange, createPgEngine, inOrder, lockKey, lockRows, type PgEngine, ROW_LOCKS_MAX } from '../../server/db/pg/engine.ts';
import { refusedByContention, StorageConflict, StorageUnavailable } from '../../server/errors.ts';
import { attachmentBlobs, clusterIdentity, pgTables } from '../../server/db/pg/schema.ts';
import { startPostgres, type ThrowawayPostgres } from '../helpers/external-servers.ts';
import { eventually } from '../helpers/server.ts';

/** The committed migrations, as drizzle-kit's journal lists them. */
const MIGRATIONS = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'server', 'db', 'pg', 'migrations', 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

let server: ThrowawayPostgres;
const engines: PgEngine[] = [];
const engineOn = (url: string, options: { statementTimeoutMs?: number } = {}) => {
  const engine = createPgEngine({ url, ...options });
  engines.push(engine);
  return engine;
};

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await server?.stop();
});

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    return rows.rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('create every table of the schema, once, when three instances start together', async () => {
    const url = await server.createDatabase('migrate_together');
    const instances = [engineOn(url), engineOn(url), engineOn(url)];
    expect(await instances[0]!.schemaStatus()).toMatchObject({ applied: 0, unknown: 0 });
    await Promise.all(instances.map((e) => e.migrate()));
    // the source's tables, and the two PostgreSQL-only tables
    const expected = [...Object.values(pgTables), attachmentBlobs, clusterIdentity].map((t) => getTableConfig(t).name).sort();
    expect(await tablesOf(url)).toEqual(expected);
    for (const engine of instances) expect(await engine.schemaStatus()).toEqual({ applied: MIGRATIONS, pending: 0, unknown: 0 });
    // a later start finds nothing to do
    await instances[0]!.migrate();
    expect(await instances[0]!.schemaStatus()).toEqual({ applied: MIGRATIONS, pending: 0, unknown: 0 });
  });
  it('refuses a database that sorts text by a language, before writing anything', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query("CREATE DATABASE by_language TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'");
    } finally {
      await admin.end();
    }
    const url = new URL(server.url);
    url.pathname = '/by_language';
    const engine = engineOn(url.toString());
    await expect(engine.migrate()).rejects.toThrow(/sorts text by a language's collation \(ICU\); Hearth needs code point order/);
    expect(await tablesOf(url.toString())).toEqual([]);
  });
});

describe('units of work', () => {
  let engine: PgEngine;
  let unitsUrl: string;
  beforeAll(async () => {
    const url = await server.createDatabase('units');
    unitsUrl = url;
    engine = engineOn(url, { statementTimeoutMs: 300 });
    await engine.write((db) => db.execute(sql`CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL)`));
  });

  const count = () => engine.read(async (db) => Number((await db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM items`)).rows[0]!.n));
  const insert = (id: string, n = 0) => engine.write((db) => db.execute(sql`INSERT INTO items (id, n) VALUES (${id}, ${n})`));

  it('commits a unit of work whole, and rolls it back whole when it throws', async () => {
    await engine.transaction(async () => {
      await insert('a');
      expect(engine.inTransaction()).toBe(true);
      await insert('b');
    });
    expect(await count()).toBe(2);
    await expect(
      engine.transaction(async () => {
        await insert('c');
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await count()).toBe(2);
    expect(engine.inTransaction()).toBe(false);
  });

  it('does not carry a unit of work past its end into work it scheduled (a timer set by a request runs on its own)', async () => {
    let later: Promise<void> | undefined;
    const scheduled = new Promise<void>((resolve) => {
      void engine.transaction(async () => {
        await insert('scheduled-by');
        // the async context of this callback is the unit's, which has committed by the time it runs
        setTimeout(() => {
          later = (async () => {
            expect(engine.inTransaction()).toBe(false);
            await engine.transaction(async () => insert('scheduled'));
          })();
          resolve();
        }, 20);
      });
    });
    await scheduled;
    await later;
    expect(await engine.read(async (db) => (await db.execute<{ id: string }>(sql`SELECT id FROM items WHERE id LIKE 'scheduled%' ORDER BY id`)).rows)).toEqual([
      { id: 'scheduled' },
      { id: 'scheduled-by' },
    ]);
    await engine.write((db) => db.execute(sql`DELETE FROM items WHERE id LIKE 'scheduled%'`));
  });

  it('runs what waits for a commit after it, with the data visible to other connections, and never after a rollback', async () => {
    const seen: Array<number | string> = [];
    await engine.transaction(async () => {
      await insert('committed-1');
      engine.afterCommit(() => void count().then((n) => seen.push(n)));
      expect(seen).toEqual([]);
    });
    const total = await count();
    await eventually(() => expect(seen).toEqual([total]));
    await expect(
      engine.transaction(async () => {
        await insert('rolled-back-1');
        engine.afterCommit(() => seen.push('after a rollback'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    engine.afterCommit(() => seen.push('outside a unit: at once'));
    expect(seen.slice(1)).toEqual(['outside a unit: at once']);
    await engine.write((db) => db.execute(sql`DELETE FROM items WHERE id = 'committed-1'`));
  });

  it('frames a nested unit of work in a savepoint: its failure leaves the outer one going', async () => {
    await engine.transaction(async () => {
      await insert('outer');
      await expect(
        engine.transaction(async () => {
          await insert('inner');
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await insert('after');
    });
    const ids = await engine.read(async (db) => (await db.execute<{ id: string }>(sql`SELECT id FROM items ORDER BY id`)).rows.map((r) => r.id));
    expect(ids).toEqual(['a', 'after', 'b', 'outer']);
  });

  it('never lets another request see a unit of work half done, while many interleave and await', async () => {
    // each unit writes a pair of rows with an await between them; readers running meanwhile count pairs
    const seen: number[] = [];
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const odd = await engine.read(
          async (db) => Number((await db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM items WHERE id LIKE 'pair-%'`)).rows[0]!.n) % 2,
        );
        seen.push(odd);
      }
    })();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        engine.transaction(async () => {
          await insert(`pair-${i}-1`);
          await new Promise((resolve) => setImmediate(resolve));
          await insert(`pair-${i}-2`);
        }),
      ),
    );
    stop = true;
    await reader;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((odd) => odd === 0)).toBe(true);
    expect(await engine.read(async (db) => (await db.execute(sql`SELECT 1 FROM items WHERE id LIKE 'pair-%'`)).rows.length)).toBe(80);
  });

  it('runs a SERIALIZABLE unit of work again when PostgreSQL refuses it, so that no update is lost', async () => {
    await insert('counter', 0);
    const increment = () =>
      engine.transaction(
        async () => {
          const [row] = (await engine.read((db) => db.execute<{ n: number }>(sql`SELECT n FROM items WHERE id = 'counter'`))).rows;
          await new Promise((resolve) => setTimeout(resolve, 5));
          await engine.write((db) => db.execute(sql`UPDATE items SET n = ${row!.n + 1} WHERE id = 'counter'`));
        },
        { isolation: 'serializable' },
      );
    await Promise.all(Array.from({ length: 4 }, increment));
    const [row] = (await engine.read((db) => db.execute<{ n: number }>(sql`SELECT n FROM items WHERE id = 'counter'`))).rows;
    expect(row!.n).toBe(4);
  });

  it('runs a READ COMMITTED unit again when a write finds what it read changed (ConcurrentChange), and a key lock makes the second creator wait and find the row', async () => {
    // an optimistic update: applies only while n is as read, else the unit runs again and reads it anew
    await insert('optimistic', 0);
    const bump = () =>
      engine.transaction(async () => {
        const [row] = (await engine.read((db) => db.execute<{ n: number }>(sql`SELECT n FROM items WHERE id = 'optimistic'`))).rows;
        await new Promise((resolve) => setTimeout(resolve, 5));
        const result = await engine.write((db) => db.execute(sql`UPDATE items SET n = ${row!.n + 1} WHERE id = 'optimistic' AND n = ${row!.n}`));
        if (result.rowCount !== 1) throw new ConcurrentChange('the counter');
      });
    const before = engine.retries();
    await Promise.all(Array.from({ length: 4 }, bump));
    expect((await engine.read((db) => db.execute<{ n: number }>(sql`SELECT n FROM items WHERE id = 'optimistic'`))).rows[0]!.n).toBe(4);
    expect(engine.retries() - before).toBeGreaterThan(0);
    // a row that does not exist yet: ten units lock its key, look, and create it; one makes it, nine find it
    const create = () =>
      engine.transaction(async () => {
        await engine.read((db) => lockKey(db, 'items', 'locked'));
        const found = (await engine.read((db) => db.execute(sql`SELECT 1 FROM items WHERE id = 'locked'`))).rows.length > 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (found) return 'found';
        await insert('locked');
        return 'made';
      });
    const answers = await Promise.all(Array.from({ length: 10 }, create));
    expect(answers.filter((a) => a === 'made')).toHaveLength(1);
    expect(answers.filter((a) => a === 'found')).toHaveLength(9);
  });

  it('runs a unit again for a foreign key violation after other refusals used up its first attempts, and surfaces one met three times', async () => {
    // refusals as PostgreSQL answers them (their SQLSTATE): two deadlocks, then the parent found gone, then done. The
    // violations were counted by attempt, so the one met at the third attempt surfaced (a 500) although it was the first
    const refusal = (code: string) => Object.assign(new Error(`refused ${code}`), { code });
    const answers = ['40P01', '40P01', '23503'];
    let runs = 0;
    const done = await engine.transaction(async () => {
      runs++;
      const code = answers.shift();
      if (code) throw refusal(code);
      return 'done';
    });
    expect([done, runs]).toEqual(['done', 4]);
    // a violation met at every run surfaces at the third, as it is
    let violations = 0;
    await expect(
      engine.transaction(async () => {
        violations++;
        throw refusal('23503');
      }),
    ).rejects.toMatchObject({ code: '23503' });
    expect(violations).toBe(3);
  });

  it('surfaces a unit refused every time it runs (its attempts spent) with its refusal, which the HTTP layer answers ABORTED', async () => {
    const refusal = (code: string) => Object.assign(new Error(`refused ${code}`), { code });
    for (const code of ['40001', '40P01']) {
      let runs = 0;
      const unit = engine.transaction(
        async () => {
          runs++;
          throw refusal(code);
        },
        { isolation: 'serializable' },
      );
      await expect(unit).rejects.toMatchObject({ code });
      await unit.catch((error: unknown) => expect(refusedByContention(error)).toBe(true));
      expect(runs).toBe(12);
    }
    // a repository's optimistic check that keeps failing, at READ COMMITTED: the same
    const optimistic = engine.transaction(async () => {
      throw new ConcurrentChange('a row');
    });
    await expect(optimistic).rejects.toBeInstanceOf(ConcurrentChange);
    await optimistic.catch((error: unknown) => expect(refusedByContention(error)).toBe(true));
    // a driver's refusal as drizzle wraps it, and what is not one
    expect(refusedByContention(new Error('Failed query', { cause: refusal('40001') }))).toBe(true);
    expect(refusedByContention(refusal('23505'))).toBe(false);
    expect(refusedByContention(new Error('plain'))).toBe(false);
  });

  it('runs a SERIALIZABLE check-then-insert again when another unit took the key, and answers a key taken for good as a StorageConflict', async () => {
    // ten units find no row, then insert it: one commits, the others meet its key (23505) and, run again, find it
    const create = () =>
      engine.transaction(
        async () => {
          const found = (await engine.read((db) => db.execute(sql`SELECT 1 FROM items WHERE id = 'raced'`))).rows.length > 0;
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (found) return 'found';
          await insert('raced');
          return 'made';
        },
        { isolation: 'serializable' },
      );
    const answers = await Promise.all(Array.from({ length: 10 }, create));
    expect(answers.filter((a) => a === 'made')).toHaveLength(1);
    expect(answers.filter((a) => a === 'found')).toHaveLength(9);
    // a key that is taken whatever the unit reads: a StorageConflict once the attempts are spent, and at once in a
    // READ COMMITTED write (not retried there)
    const before = engine.retries();
    const again = engine.transaction(() => insert('raced'), { isolation: 'serializable' });
    await expect(again).rejects.toBeInstanceOf(StorageConflict);
    expect(engine.retries() - before).toBe(11);
    await expect(insert('raced')).rejects.toBeInstanceOf(StorageConflict);
    await expect(insert('raced')).rejects.toMatchObject({ cause: { cause: { code: '23505' } } });
  });

  it('commits a deferred last write with the unit, and fails the whole unit with its own error when it fails', async () => {
    const deferred = (id: string) => engine.defer(() => engine.read((db) => db.execute(sql`INSERT INTO items (id, n) VALUES (${id}, 1)`)));
    const has = async (id: string) => (await engine.read((db) => db.execute(sql`SELECT 1 FROM items WHERE id = ${id}`))).rows.length > 0;
    // committed: the unit answers once its COMMIT has, and the row is there for another connection
    await engine.transaction(async () => {
      await insert('deferred-1');
      await deferred('deferred-2');
    });
    expect([await has('deferred-1'), await has('deferred-2')]).toEqual([true, true]);
    // failed (its key taken): the unit throws the key's conflict, and its earlier write is rolled back with it
    await expect(
      engine.transaction(async () => {
        await insert('deferred-3');
        await deferred('deferred-2');
        return 'answered';
      }),
    ).rejects.toBeInstanceOf(StorageConflict);
    expect(await has('deferred-3')).toBe(false);
    // a statement sent behind the failed one meets an aborted transaction (25P02): the unit throws the cause
    await expect(
      engine.transaction(async () => {
        await deferred('deferred-2');
        await insert('deferred-4');
      }),
    ).rejects.toBeInstanceOf(StorageConflict);
    expect(await has('deferred-4')).toBe(false);
    // in a nested unit (a savepoint) it is awaited: its failure is the nested unit's, which the outer one may catch
    await engine.transaction(async () => {
      await expect(engine.transaction(() => deferred('deferred-2'))).rejects.toMatchObject({ cause: { code: '23505' } });
      await insert('deferred-6');
    });
    expect(await has('deferred-6')).toBe(true);
    // outside a unit of work it is awaited, as any write
    await expect(deferred('deferred-2')).rejects.toMatchObject({ cause: { code: '23505' } });
    await deferred('deferred-5');
    expect(await has('deferred-5')).toBe(true);
  });

  it('answers a unit whose connection is lost (its backend terminated) as StorageUnavailable, without ending the process', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const unit = engine.transaction(async () => {
        await insert('lost-1');
        const { rows } = await engine.read((db) => db.execute<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`));
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // the connection's end arrives while no statement is out (an 'error' event on the client), then this one fails
        await new Promise((resolve) => setTimeout(resolve, 50));
        await insert('lost-2');
      });
      await expect(unit).rejects.toBeInstanceOf(StorageUnavailable);
      // nothing of the unit was written, and the next units run on other connections
      expect((await engine.read((db) => db.execute(sql`SELECT id FROM items WHERE id LIKE 'lost-%'`))).rows).toEqual([]);
      await insert('lost-3');
      expect((await engine.read((db) => db.execute(sql`SELECT id FROM items WHERE id LIKE 'lost-%'`))).rows).toEqual([{ id: 'lost-3' }]);
    } finally {
      await admin.end();
    }
  });

  it('survives a connection lost in the moment between the pool handing it out and the unit listening to it', async () => {
    // A proxy in front of PostgreSQL that ends the pool's first connection as PostgreSQL does when it terminates a
    // backend, at the worst moment: its FATAL error arrives in the same packet as the ReadyForQuery that completes the
    // connection. The pool hands the connection out on that ReadyForQuery, and the unit's own listener is attached a
    // microtask later, after the error event: before, nobody listened to it and it ended the process (CI of stop 57).
    const target = new URL(unitsUrl);
    const terminated = Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0');
    const fatal = Buffer.concat([Buffer.from('E'), Buffer.alloc(4), terminated]);
    fatal.writeInt32BE(4 + terminated.length, 1);
    let connections = 0;
    const proxy = createServer((inbound) => {
      const first = connections++ === 0;
      const outbound = connect(Number(target.port), target.hostname);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
      inbound.pipe(outbound);
      if (!first) {
        outbound.pipe(inbound);
        return;
      }
      // the server's messages (a type byte, then a length that counts itself) passed on whole, up to the first
      // ReadyForQuery ('Z'), which goes with the error, and the connection ends
      let pending = Buffer.alloc(0);
      outbound.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        let at = 0;
        while (at + 5 <= pending.length) {
          const end = at + 1 + pending.readInt32BE(at + 1);
          if (end > pending.length) break;
          if (pending[at] === 0x5a) {
            inbound.end(Buffer.concat([pending.subarray(0, end), fatal]));
            outbound.destroy();
            return;
          }
          at = end;
        }
        inbound.write(pending.subarray(0, at));
        pending = pending.subarray(at);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const via = new URL(unitsUrl);
    via.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const proxied = createPgEngine({ url: via.toString() });
    try {
      await expect(
        proxied.transaction(async () => proxied.write((db) => db.execute(sql`INSERT INTO items (id, n) VALUES ('window-1', 0)`))),
      ).rejects.toBeInstanceOf(StorageUnavailable);
      // the next unit gets a new connection, and the process is up to run it
      await proxied.transaction(async () => proxied.write((db) => db.execute(sql`INSERT INTO items (id, n) VALUES ('window-2', 0)`)));
      expect((await engine.read((db) => db.execute(sql`SELECT id FROM items WHERE id LIKE 'window-%'`))).rows).toEqual([{ id: 'window-2' }]);
      expect(connections).toBe(2);
    } finally {
      await proxied.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('throws the first failure of pipelined statements in the order they were sent, whichever reached it first (inOrder)', async () => {
    // the lock a caller awaits through an async function of its own (more promises between) fails first; the
    // statement sent behind it fails as "transaction aborted", and its rejection travels fewer promises
    const cause = Object.assign(new Error('the lock'), { code: '40P01' });
    const behind = Object.assign(new Error('behind it'), { code: '25P02' });
    const sent = () => [(async () => Promise.reject(await Promise.resolve(cause)))(), Promise.reject(behind)] as const;
    await expect(Promise.all(sent())).rejects.toBe(behind);
    await expect(inOrder(sent())).rejects.toBe(cause);
    expect(await inOrder([Promise.resolve(1), 'two'] as const)).toEqual([1, 'two']);
  });

  it("takes lockRows' locks together, in order: the kind's, held exclusively past ROW_LOCKS_MAX rows, holds off a row of it, and a lock's own failure is thrown", async () => {
    const kind = ['items', 'rows'];
    let release!: () => void;
    const releasing = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const order: string[] = [];
    const many = engine.transaction(async () => {
      await engine.write((db) =>
        lockRows(
          db,
          kind,
          Array.from({ length: ROW_LOCKS_MAX + 1 }, (_, i) => `r${i}`),
        ),
      );
      held();
      await releasing;
      order.push('many ends');
    });
    await holding;
    const one = engine.transaction(async () => {
      await engine.write((db) => lockRows(db, kind, ['r5']));
      order.push('one holds r5');
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await Promise.all([many, one]);
    expect(order).toEqual(['many ends', 'one holds r5']);
    // a row held past the statement timeout (300 ms): the unit fails with that lock's error (57014), not with the
    // "transaction aborted" (25P02) of the lock sent behind it
    let free!: () => void;
    const freeing = new Promise<void>((resolve) => (free = resolve));
    let taken!: () => void;
    const taking = new Promise<void>((resolve) => (taken = resolve));
    const holder = engine.transaction(async () => {
      await engine.write((db) => lockRows(db, kind, ['b']));
      taken();
      await freeing;
    });
    await taking;
    const waiter = engine.transaction(() => engine.write((db) => lockRows(db, kind, ['b', 'c'])));
    await expect(waiter).rejects.toMatchObject({ code: '57014' });
    free();
    await holder;
  });

  it('begins a fenced SERIALIZABLE unit once the units sharing its key have committed, sees their rows, holds off the next ones, and frees the key however it ends', async () => {
    const key = ['items', 'fenced'];
    let release!: () => void;
    const releasing = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const starting = new Promise<void>((resolve) => (started = resolve));
    const order: string[] = [];
    // a sharer in flight: its row is committed after the fenced unit was asked for
    const sharer = engine.transaction(
      async () => {
        await insert('shared-1');
        started();
        await releasing;
        order.push('sharer commits');
      },
      { share: [key] },
    );
    await starting;
    const fenced = engine.transaction(
      async () => {
        order.push('fenced begins');
        return count();
      },
      { isolation: 'serializable', fence: [key] },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await sharer;
    const seen = await fenced;
    expect(order).toEqual(['sharer commits', 'fenced begins']);
    expect(seen).toBe(await count());
    // a fenced unit that throws, and one whose statement fails, leave the key free: a sharer then runs at once
    await expect(engine.transaction(() => Promise.reject(new Error('stop')), { isolation: 'serializable', fence: [key] })).rejects.toThrow('stop');
    await expect(engine.transaction(() => engine.read((db) => db.execute(sql`SELECT 1/0`)), { fence: [key] })).rejects.toMatchObject({
      cause: { code: '22012' },
    });
    const advisoryLocks = async () =>
      Number(
        (
          await engine.read((db) =>
            db.execute<{ n: string }>(
              sql`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            ),
          )
        ).rows[0]?.n,
      );
    expect(await advisoryLocks()).toBe(0);
    await engine.transaction(() => insert('shared-2'), { share: [key] });
    // a fence held past the statement timeout (300 ms) fails the sharer with the timeout's error, not a later one's
    let free!: () => void;
    const freeing = new Promise<void>((resolve) => (free = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = engine.transaction(
      async () => {
        holding();
        await freeing;
      },
      { fence: [key] },
    );
    await held;
    await expect(engine.transaction(() => insert('shared-3'), { share: [key] })).rejects.toMatchObject({ code: '57014' });
    free();
    await holder;
    expect(await engine.read(async (db) => (await db.execute<{ id: string }>(sql`SELECT id FROM items WHERE id LIKE 'shared-%' ORDER BY id`)).rows)).toEqual([
      { id: 'shared-1' },
      { id: 'shared-2' },
    ]);
  });

  it('cancels a statement that runs past the timeout, and the pool goes on', async () => {
    await expect(engine.read((db) => db.execute(sql`SELECT pg_sleep(2)`))).rejects.toMatchObject({ cause: { code: '57014' } });
    expect(await count()).toBeGreaterThan(0);
  });
});

describe('change notifications', () => {
  it('tell every instance of a write to the tables it watches, its own writes at once', async () => {
    const url = await server.createDatabase('changes');
    const [a, b] = [engineOn(url), engineOn(url)];
    await a.migrate();
    const insertWorkspace = (engine: PgEngine, id: string) =>
      engine.write((db) =>
        db.execute(
          sql`INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES (${id}, 'W', 'o', 'o@x.test', 'enc', ${`digest-${id}`})`,
        ),
      );
    const keysOfB = b.tableChanges(['api_keys']);
    const workspacesOfB = b.tableChanges(['workspaces']);
    const workspacesOfA = a.tableChanges(['workspaces']);
    // until its connection listens, every read is a change
    expect(keysOfB()).not.toBe(keysOfB());
    const settled = async (read: () => number) => {
      let last = read();
      await eventually(() => {
        const now = read();
        const same = now === last;
        last = now;
        expect(same).toBe(true);
      });
      return last;
    };
    const [keys0, workspaces0] = [await settled(keysOfB), await settled(workspacesOfB)];
    const own0 = await settled(workspacesOfA);
    await insertWorkspace(a, 'w-a');
    // the writer's own count moved before it returned: no waiting on the notification
    expect(workspacesOfA()).not.toBe(own0);
    // another instance hears of it: its workspaces count moves, its api_keys count does not
    await eventually(() => expect(workspacesOfB()).toBe(workspaces0 + 1));
    // and the writer, which counted its commit at once, does not count it again when its notification comes back
    expect(await settled(workspacesOfA)).toBe(own0 + 1);
    await a.write((db) =>
      db.execute(
        sql`INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES ('k-a', 'w-a', 'K', 'testing', 'o@x.test', '[]', '{}')`,
      ),
    );
    await eventually(() => expect(keysOfB()).toBe(keys0 + 1));
    expect(workspacesOfB()).toBe(workspaces0 + 1);
    // a write to a table neither watches moves neither count
    await a.write((db) =>
      db.execute(sql`INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES ('k-a', 'o', 'o', false, '{}', 1, 1)`),
    );
    await insertWorkspace(a, 'w-b');
    await eventually(() => expect(workspacesOfB()).toBe(workspaces0 + 2));
    expect(keysOfB()).toBe(keys0 + 1);
  });
});

describe('own commits', () => {
  it("count at once for the watched tables their statements named, and a write elsewhere leaves the credentials' count as it was", async () => {
    const url = await server.createDatabase('own_commits');
    const engine = engineOn(url);
    await engine.migrate();
    const credentials = engine.tableChanges(['workspaces', 'api_keys', 'auth_tokens']);
    const organizations = engine.tableChanges(['organizations']);
    await eventually(() => expect(credentials()).toBe(credentials()));
    const [c0, o0] = [credentials(), organizations()];
    await engine.transaction(async () => {
      await engine.write((db) =>
        db.execute(
          sql`INSERT INTO workspaces (id, name, owner_id, owner_email, auth_token_enc, auth_token_digest) VALUES ('w', 'W', 'o', 'o@x.test', 'enc', 'd')`,
        ),
      );
      await engine.write((db) =>
        db.$client.query(
          "INSERT INTO api_keys (id, workspace_id, name, type, owner_email, allowed_domains, settings) VALUES ('k', 'w', 'K', 'testing', 'o@x.test', '[]', '{}')",
        ),
      );
    });
    const c1 = credentials();
    expect(c1).toBeGreaterThan(c0);
    expect(organizations()).toBe(o0);
    await engine.write((db) =>
      db.execute(sql`INSERT INTO organizations (api_key_id, id, name, disabled, metadata, created_at, updated_at) VALUES ('k', 'o', 'o', false, '{}', 1, 1)`),
    );
    expect(organizations()).toBe(o0 + 1);
    // what its own notifications say later is not counted again
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect([credentials(), organizations()]).toEqual([c1, o0 + 1]);
    // a rolled-back unit counts nothing
    await expect(
      engine.transaction(async () => {
        await engine.write((db) => db.execute(sql`DELETE FROM api_keys WHERE id = 'k'`));
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect(credentials()).toBe(c1);
  });

  it('has no foreign key or trigger by which a write to another table changes a credential table', async () => {
    const url = await server.createDatabase('credential_cascades');
    const engine = engineOn(url);
    await engine.migrate();
    const credential = ['workspaces', 'api_keys', 'auth_tokens'];
    const keys = await engine.read(
      async (db) =>
        (
          await db.execute<{ child: string; parent: string; del: string; upd: string }>(
            sql`SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent, confdeltype AS del, confupdtype AS upd FROM pg_constraint WHERE contype = 'f'`,
          )
        ).rows,
    );
    // a cascade or a set-null writes the child: into a credential table only from a credential table
    const into = keys.filter((k) => credential.includes(k.child) && (!['a', 'r'].includes(k.del) || !['a', 'r'].includes(k.upd)));
    expect(into.length).toBeGreaterThan(0);
    for (const k of into) expect(credential, `${k.parent} → ${k.child}`).toContain(k.parent);
    const functions = await engine.read(async (db) =>
      (await db.execute<{ fn: string }>(sql`SELECT DISTINCT tgfoid::regproc::text AS fn FROM pg_trigger WHERE NOT tgisinternal`)).rows.map((r) => r.fn),
    );
    expect(functions).toEqual(['hearth_notify_change']);
  });
});

describe('change triggers', () => {
  it('every table tells of its writes but the delivery tables, which no answer the response cache keeps depends on', async () => {
    const url = await server.createDatabase('triggers');
    const engine = engineOn(url);
    await engine.migrate();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT DISTINCT event_object_table AS name FROM information_schema.triggers WHERE event_object_schema = 'public' AND action_statement LIKE '%hearth_notify_change%' ORDER BY 1",
      );
      const silent = ['webhook_attempts', 'webhook_deliveries'];
      const tables = Object.values(pgTables)
        .map((table) => getTableConfig(table).name)
        .filter((name) => !silent.includes(name))
        .sort();
      expect(rows.map((r) => r.name)).toEqual(tables);
    } finally {
      await client.end();
    }
  });
});
