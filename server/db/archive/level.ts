// Schema levels: how many drizzle-kit migrations this build has, and how many a database file has had applied. An
// archive records the level it was written at; export and import refuse a database at another level than the build's.
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_DIR } from '../../paths.ts';

/** How many schema migrations this build has: the schema level of the databases it makes. */
export function buildSchemaLevel(): number {
  return readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR }).length;
}

/** How many schema migrations a database has had applied (0 for a new file). */
export function databaseSchemaLevel(sqlite: Database.Database): number {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get() !== undefined;
  return hasTable ? (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n : 0;
}

/** The schema level of a database file, read on a read-only connection of its own. */
export function schemaLevelOfFile(file: string): number {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return databaseSchemaLevel(sqlite);
  } finally {
    sqlite.close();
  }
}
