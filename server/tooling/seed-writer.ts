/**
 * Bulk inserts for the seed: one prepared statement per table, built from the drizzle schema (so the columns,
 * their names and their JSON / boolean encodings are the services' own), and rows committed in transactions of
 * `batchRows`. A million rows through drizzle's query builder would rebuild and re-encode the SQL every time;
 * this writes several hundred thousand rows a second.
 */
import type Database from 'better-sqlite3';
import { getTableColumns, getTableName, type Column } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

export interface BulkWriter {
  /** An inserter for `table`: each call adds one row (all columns the first row names, in the same shape). */
  into<T extends SQLiteTable>(table: T): (row: T['$inferInsert']) => void;
  /** Commits the open batch. */
  commit(): void;
  /** Rolls back the open batch (what was committed before stays). */
  rollback(): void;
  rows(): number;
}

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
    into<T extends SQLiteTable>(table: T) {
      const columns = Object.entries(getTableColumns(table)) as Array<[string, Column]>;
      let statement: Database.Statement | undefined;
      let used: Array<[string, Column]> = [];
      return (row: T['$inferInsert']) => {
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
