// PostgreSQL's dialect of the engine repositories written once see (../engine.ts): the same builder calls, run by
// the pg driver through the PostgreSQL engine (engine.ts: units of work, isolation, retries) on the tables converted
// from the one schema (schema.ts), which keep the source's property names and row types.
import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Engine, Prepared, Q, Tables } from '../engine.ts';
import { lockRows, type PgDb, type PgEngine } from './engine.ts';
import { insertionOrderOf, pgTables, sourceColumnsOf } from './schema.ts';

const tables = pgTables as unknown as Tables;

/** drizzle's prepared statement on PostgreSQL: its rows (a select), or the driver's result (a write without RETURNING). */
interface PgPrepared {
  execute(values?: Record<string, unknown>): Promise<unknown>;
}

export function pgDialect(engine: PgEngine): Engine {
  return {
    kind: 'postgres',
    t: tables,
    read: (statements) => engine.read((db) => statements(db as unknown as Q)),
    write: (statements) => engine.write((db) => statements(db as unknown as Q)),
    snapshot: (statements) => {
      const run = () => engine.read((db) => statements(db as unknown as Q));
      return engine.inTransaction() ? run() : engine.transaction(run, { isolation: 'repeatable read' });
    },
    columns: (table) => sourceColumnsOf(table as unknown as PgTable) as never,
    insertionOrder: (table) => sql`${insertionOrderOf(table)}`,
    lockRows: (db, kind, ids) => lockRows(db as unknown as PgDb, kind, ids),
    execute: (db, statement) => (db as unknown as PgDb).execute(statement),
    changed: (result) => (result as { rowCount?: number | null }).rowCount ?? 0,
    prepare<Row>(name: string, build: (db: Q, t: Tables) => unknown): Prepared<Row> {
      // once per pooled connection (a unit of work's drizzle database is made per unit, over a connection kept by the
      // pool), and once for the pool itself (reads outside units of work): PostgreSQL prepares it per connection
      const cache = new WeakMap<object, PgPrepared>();
      const of = (db: Q) => {
        const client = (db as unknown as PgDb).$client;
        let prepared = cache.get(client);
        if (!prepared) cache.set(client, (prepared = (build(db, tables) as { prepare(name: string): PgPrepared }).prepare(name)));
        return prepared;
      };
      return {
        all: async (db, values) => (await of(db).execute(values)) as Row[],
        one: async (db, values) => ((await of(db).execute(values)) as Row[])[0],
        run: async (db, values) => ((await of(db).execute(values)) as { rowCount?: number | null }).rowCount ?? 0,
      };
    },
  };
}
