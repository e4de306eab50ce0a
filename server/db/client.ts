import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Database_ {
  db: Db;
  sqlite: Database.Database;
  close(): void;
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Opens the database with the pragmas Hearth relies on (WAL, foreign keys, a busy timeout so a CLI command
 * and the server can share the file) and applies the committed drizzle-kit migrations.
 */
export function openDatabase(file: string): Database_ {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted content is overwritten, so that erasing a user's data leaves no copy in free pages of the file.
  sqlite.pragma('secure_delete = ON');
  cacheStatements(sqlite);
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS });
  return {
    db,
    sqlite,
    close() {
      if (!sqlite.open) return;
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.close();
    },
  };
}

const STATEMENT_CACHE_SIZE = 2_000;

/**
 * Reuses compiled statements by SQL text. drizzle prepares (compiles) every query it runs, and compiling was a
 * third of the CPU of a write such as notifications/add. drizzle switches a statement to array rows with
 * `raw()` when it wants them and assumes object rows otherwise, so a reused statement is handed out with `raw`
 * off. Statements are never iterated (`iterate()` would make a shared statement busy).
 */
function cacheStatements(sqlite: Database.Database) {
  const compile = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (statement) {
      if (statement.reader) statement.raw(false);
      return statement;
    }
    statement = compile(source);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
    cache.set(source, statement);
    return statement;
  }) as typeof sqlite.prepare;
}

/**
 * Runs `work` in one SQLite transaction; the synchronous driver makes this the write path of every service.
 * IMMEDIATE takes the write lock up front: a read-then-write transaction cannot then lose a race with another
 * process (the CLI) and fail with SQLITE_BUSY_SNAPSHOT; it waits (busy_timeout) instead.
 */
export function transaction<T>(db: Db, work: (tx: Db) => T): T {
  return db.transaction((tx) => work(tx as unknown as Db), { behavior: 'immediate' });
}
