// Bound LIMITs written `+?` (server/db/bound-limit.ts): SQLite compiles a statement with `LIMIT ?` again on every
// run (the planner peeks at the bound value), which `LIMIT +?` avoids. The rewrite must change nothing else: the
// same rows, the same errors for odd values, the same query plans; and every connection Hearth opens uses it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { unpeekedLimits } from '../../server/db/bound-limit.ts';
import { openDatabase } from '../../server/db/client.ts';
import { openDeliveryFile } from '../../server/db/delivery-file.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('unpeekedLimits', () => {
  it.each([
    ['select * from t order by a limit ?', 'select * from t order by a limit +?'],
    [
      'select * from "t" where ("t"."a" = ?) order by "t"."b" desc limit ? offset ?',
      'select * from "t" where ("t"."a" = ?) order by "t"."b" desc limit +? offset ?',
    ],
    ['SELECT a FROM t ORDER BY a LIMIT ?', 'SELECT a FROM t ORDER BY a LIMIT +?'],
    ['select a from t limit ?, ?', 'select a from t limit +?, +?'],
    ['select a from t limit ?2', 'select a from t limit +?2'],
    ['select a from t limit @count', 'select a from t limit +@count'],
    ['select a from t limit :count offset :skip', 'select a from t limit +:count offset :skip'],
    ['select (select b from u where u.a = t.a limit ?) from t limit ?', 'select (select b from u where u.a = t.a limit +?) from t limit +?'],
  ])('%s', (sql, expected) => {
    expect(unpeekedLimits(sql)).toBe(expected);
  });

  it.each(['select a from t limit 50', 'select rate_limit from t where rate_limit = ?', 'select a from t', "select a from t where b = 'x' limit 1"])(
    'leaves %s as it is',
    (sql) => {
      expect(unpeekedLimits(sql)).toBe(sql);
    },
  );
});

describe('LIMIT +? behaves as LIMIT ?', () => {
  const db = new Database(':memory:');
  db.exec('create table t (a integer primary key, b text, c integer); create index t_c on t (c, a);');
  const insert = db.prepare('insert into t (b, c) values (?, ?)');
  for (let i = 0; i < 20; i++) insert.run(`row ${i}`, i % 4);
  const outcome = (sql: string, params: unknown[]) => {
    try {
      return { rows: db.prepare(sql).all(...params) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  it.each([[5], [5.0], ['5'], [0], [-1], [null], [2.5], ['x'], [BigInt(3)], [1e20]])('with %s bound', (value) => {
    for (const sql of ['select a, b from t where c = ? order by a desc limit ?', 'select a from t order by b limit ? offset 2']) {
      const params = sql.startsWith('select a, b') ? [1, value] : [value];
      expect(outcome(unpeekedLimits(sql), params)).toEqual(outcome(sql, params));
    }
  });

  it('with its offset and the comma form', () => {
    expect(outcome(unpeekedLimits('select a from t order by a limit ? offset ?'), [3, 4])).toEqual({ rows: [{ a: 5 }, { a: 6 }, { a: 7 }] });
    expect(outcome(unpeekedLimits('select a from t order by a limit ?, ?'), [4, 3])).toEqual({ rows: [{ a: 5 }, { a: 6 }, { a: 7 }] });
  });

  it('with the same query plans', () => {
    const plan = (sql: string, params: unknown[]) =>
      db
        .prepare(`explain query plan ${sql}`)
        .all(...params)
        .map((row) => (row as { detail: string }).detail);
    for (const [sql, params] of [
      ['select a from t where c = ? order by a desc limit ?', [2, 3]],
      ['select a from t order by b limit ?', [3]],
      ['select a, (select count(*) from t u where u.c = t.c limit ?) from t where c in (1, 2) order by c, a limit ?', [1, 5]],
    ] as const) {
      expect(plan(unpeekedLimits(sql), [...params])).toEqual(plan(sql, [...params]));
    }
  });
});

describe("Hearth's connections", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bound-limit-'));
  dirs.push(dataDir);

  it('compile bound LIMITs as +? on hearth.db and webhooks.db', () => {
    const main = openDatabase(join(dataDir, 'hearth.db'));
    const deliveries = openDeliveryFile(dataDir, { readOnly: true });
    try {
      expect(main.sqlite.prepare('select id from organizations limit ?').source).toBe('select id from organizations limit +?');
      expect(deliveries.prepare('select event_id from webhook_deliveries limit ?').source).toBe('select event_id from webhook_deliveries limit +?');
    } finally {
      main.close();
      deliveries.close();
    }
  });
});
