import Database from 'better-sqlite3';
import { join } from 'node:path';

/**
 * The rows a query finds in a data dir's database file, read with a read-only connection of the test's own (the
 * server's connections are its storage layer's): what a test waits on when no operation answers it.
 */
export function queryDataFile<T>(dataDir: string, sql: string, params: unknown[] = [], file = 'hearth.db'): T[] {
  const db = new Database(join(dataDir, file), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
