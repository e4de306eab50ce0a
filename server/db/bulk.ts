// Bulk inserts (the demo data set of `hearth seed`, the admin's reset): one prepared statement per table, built from
// the drizzle schema (so the columns, their names and their JSON / boolean encodings are the services' own), and rows
// committed in transactions of `batchRows`. A million rows through drizzle's query builder would rebuild and
// re-encode the SQL every time; this writes several hundred thousand rows a second. Rows are written as given,
// API key included: this is a tool of the data dir (no server runs on it while `hearth seed` writes), not of one
// tenant's request.
import type Database from 'better-sqlite3';
import { getTableColumns, getTableName, type Column } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from './schema.ts';
import type { SqliteEngine } from './storage.ts';

type Schema = typeof schema;
/** The schema's tables, by their names in the schema module (`organizations`, `userGroupMembers`, ...). */
export type BulkTable = { [K in keyof Schema]: Schema[K] extends SQLiteTable ? K : never }[keyof Schema];
/** A row of a table as a bulk writer takes it (the schema's insert shape). */
export type BulkRow<T extends BulkTable> = Schema[T] extends SQLiteTable ? Schema[T]['$inferInsert'] : never;

export interface BulkWriter {
  /** An inserter for `table`: each call adds one row (all columns the first row names, in the same shape). */
  into<T extends BulkTable>(table: T): (row: BulkRow<T>) => void;
  /** Commits the open batch (on PostgreSQL, when the promise resolves: await it). */
  commit(): void | Promise<void>;
  /** Rolls back the open batch (what was committed before stays). */
  rollback(): void | Promise<void>;
  rows(): number;
}

/** A bulk writer on a connection (its batches are transactions of their own: the connection must not be in one). */
export function createBulkWriter(sqlite: Database.Database, batchRows = 10_000): BulkWriter {
  let open = false;
  let inBatch = 0;
  let total = 0;
  const begin = () => {
    if (!open) {
      sqlite.exec('BEGIN IMMEDIATE');
      open = true;
    }
  };
  const commit = () => {
    if (open) sqlite.exec('COMMIT');
    open = false;
    inBatch = 0;
  };

  return {
    into<T extends BulkTable>(name: T) {
      const table = schema[name] as SQLiteTable;
      const columns = Object.entries(getTableColumns(table)) as Array<[string, Column]>;
      let statement: Database.Statement | undefined;
      let used: Array<[string, Column]> = [];
      return (row: BulkRow<T>) => {
        const values = row as Record<string, unknown>;
        if (!statement) {
          used = columns.filter(([key]) => values[key] !== undefined);
          const names = used.map(([, column]) => `"${column.name}"`).join(', ');
          statement = sqlite.prepare(`INSERT INTO "${getTableName(table)}" (${names}) VALUES (${used.map(() => '?').join(', ')})`);
        }
        const params = used.map(([key, column]) => {
          const value = values[key];
          return value === null || value === undefined ? null : column.mapToDriverValue(value);
        });
        begin();
        statement.run(params);
        total++;
        if (++inBatch >= batchRows) commit();
      };
    },
    commit,
    rollback() {
      if (open) sqlite.exec('ROLLBACK');
      open = false;
      inBatch = 0;
    },
    rows: () => total,
  };
}

export interface BulkLoad extends BulkWriter {
  /** Puts the connection's settings back and checkpoints the WAL into the database file (PostgreSQL: analyzes). */
  finish(): void | Promise<void>;
}

/**
 * A bulk writer for loading a data dir no server runs on, on the engine's main connection. While it loads, that
 * connection has a bigger page cache (the large set's index pages stay in memory) and checkpoints its WAL every
 * ~100 MB instead of every 4 MB (each checkpoint syncs the file and rewrites the pages the next batch touches again);
 * no server runs on the data dir, so the longer WAL costs no reader anything.
 */
export function openBulkLoad(engine: SqliteEngine, batchRows: number): BulkLoad {
  const { sqlite } = engine.main;
  const writer = createBulkWriter(sqlite, batchRows);
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  const autoCheckpoint = sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;
  sqlite.pragma('cache_size = -262144');
  sqlite.pragma('wal_autocheckpoint = 25000');
  return {
    ...writer,
    finish() {
      sqlite.pragma(`cache_size = ${cacheSize}`);
      sqlite.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    },
  };
}
