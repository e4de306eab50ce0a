import Database from 'better-sqlite3';
import { ownerOnlyDatabase } from '../security/file-modes.ts';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../log.ts';
import { MIGRATIONS_DIR } from '../paths.ts';
import { backupsDir, DATABASE_FILE } from '../data-files.ts';
import { backupDataDir } from './backup.ts';
import { VERSION } from '../version.ts';
import { compileWithUnpeekedLimits } from './bound-limit.ts';
import { connectionOf, type Db } from './connection.ts';
import * as schema from './schema.ts';

export type { Db };

export interface Database_ {
  db: Db;
  sqlite: Database.Database;
  close(): void;
}

const MIGRATIONS = MIGRATIONS_DIR;

/**
 * Opens the database with the pragmas Hearth relies on (WAL, foreign keys, a busy timeout so a CLI command
 * and the server can share the file) and applies the committed drizzle-kit migrations. A database made by a
 * newer Hearth is refused before anything is written; an existing database with pending migrations is backed up
 * into DATA_DIR/backups/pre-migrate-<time>/ first, so an upgrade can be undone with `hearth restore`.
 */
export function openDatabase(file: string, options: { log?: Logger } = {}): Database_ {
  ownerOnlyDatabase(file);
  const sqlite = new Database(file);
  sqlite.pragma('busy_timeout = 5000');
  try {
    prepareMigrations(sqlite, file, options.log);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = configureConnection(sqlite);
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

/**
 * The pragmas and helpers every connection to hearth.db gets (WAL, foreign keys, deleted content overwritten,
 * bounded statements, the statement cache), and its drizzle database.
 */
function configureConnection(sqlite: Database.Database): Db {
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Deleted content is overwritten, so that erasing a user's data leaves no copy in free pages of the file.
  sqlite.pragma('secure_delete = ON');
  compileWithUnpeekedLimits(sqlite);
  cacheStatements(sqlite);
  return drizzle(sqlite, { schema });
}

/** A second connection to a database openDatabase opened (and migrated): the storage layer's write connection. */
export function openConnection(file: string): { db: Db; sqlite: Database.Database } {
  const sqlite = new Database(file, { fileMustExist: true });
  return { db: configureConnection(sqlite), sqlite };
}

/** A database that holds migrations this build does not know: it was made (or upgraded) by a newer Hearth. */
export class NewerSchemaError extends Error {
  constructor(file: string, unknown: number) {
    super(
      `${file} was made by a newer Hearth (${unknown} schema migration${unknown === 1 ? '' : 's'} unknown to Hearth ${VERSION}): ` +
        'upgrade Hearth to open it, or restore a backup made by this version. Nothing was changed.',
    );
    this.name = 'NewerSchemaError';
  }
}

export interface SchemaStatus {
  /** Migrations of this build. */
  known: number;
  /** Rows of __drizzle_migrations. */
  applied: number;
  /** Migrations of this build that the next start applies (drizzle's rule: newer than the last applied). */
  pending: number;
  /** Applied migrations newer than every migration of this build. */
  unknown: number;
}

let knownMigrations: MigrationMeta[] | undefined;

/** This build's migrations (the committed drizzle-kit folder), oldest first. */
export function buildMigrations(): MigrationMeta[] {
  return (knownMigrations ??= readMigrationFiles({ migrationsFolder: MIGRATIONS }));
}

/** Where a database stands against this build's migrations; reads only (doctor uses it on a read-only handle). */
export function schemaStatus(sqlite: Database.Database, migrations: MigrationMeta[] = buildMigrations()): SchemaStatus {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get() !== undefined;
  const rows = hasTable ? (sqlite.prepare('SELECT created_at AS createdAt FROM __drizzle_migrations').all() as { createdAt: number | string | null }[]) : [];
  const newestKnown = Math.max(0, ...migrations.map((m) => m.folderMillis));
  const appliedAt = rows.map((r) => Number(r.createdAt));
  const lastApplied = appliedAt.length > 0 ? Math.max(...appliedAt) : undefined;
  return {
    known: migrations.length,
    applied: rows.length,
    pending: migrations.filter((m) => lastApplied === undefined || m.folderMillis > lastApplied).length,
    unknown: appliedAt.filter((at) => at > newestKnown).length,
  };
}

function prepareMigrations(sqlite: Database.Database, file: string, log: Logger | undefined) {
  const status = schemaStatus(sqlite);
  if (status.unknown > 0) throw new NewerSchemaError(file, status.unknown);
  if (status.applied === 0 || status.pending === 0) return;
  if (basename(file) !== DATABASE_FILE) throw new Error(`${file}: pending migrations are applied only to a data dir's ${DATABASE_FILE}, after a backup`);
  const dataDir = dirname(file);
  const outDir = join(backupsDir(dataDir), `pre-migrate-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const backup = backupDataDir(dataDir, outDir);
  const message = `Schema upgrade: ${status.pending} migration${status.pending === 1 ? '' : 's'} to apply; backed up the data dir first`;
  if (log) log.warn(message, { backup: backup.outDir });
  else process.stderr.write(`${message}: ${backup.outDir}\n`);
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
 * process (the CLI) and fail with SQLITE_BUSY_SNAPSHOT; it waits (busy_timeout) instead. Called inside another
 * transaction it is a savepoint of it. The transaction is better-sqlite3's, and `work` gets the drizzle database
 * itself: a transaction is a state of the connection, which every query of `db` runs on, and drizzle's own
 * transaction object cost ~20 µs a call to build (it sets up a query builder for every table of the schema).
 */
export function transaction<T>(db: Db, work: (tx: Db) => T): T {
  return connectionOf(db)
    .transaction(() => work(db))
    .immediate();
}
