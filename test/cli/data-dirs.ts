/** Data dirs in chosen states for the CLI tests: made by an older build, by a newer build, or current. */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { ROOT } from '../helpers/cli.ts';

const MIGRATIONS = join(ROOT, 'server', 'db', 'migrations');

interface JournalEntry {
  when: number;
  tag: string;
}

export function journal(): JournalEntry[] {
  return (JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: JournalEntry[] }).entries;
}

/** The run environment without any runtime-contract setting from the outer shell (empty = unset). */
export const CLEAN_ENV = {
  PORT: '',
  HOST: '',
  DATA_DIR: '',
  HEADER_BRAND: '',
  LOG_LEVEL: '',
  HEARTH_CONFIG: '',
  SMTP_URL: '',
  MAIL_FROM: '',
  AI_TIMEOUT_MS: '',
  WEBHOOK_RETRY_SCHEDULE_MS: '',
  LOGIN_LINK_ALLOWED_HOSTS: '',
};

/**
 * A data dir as a build that had only the first `keep` migrations left it: drizzle's own migrator on a copy of
 * the migrations folder whose journal lists fewer entries. With no `keep`, the current schema.
 */
export function dataDirWithMigrations(dataDir: string, scratch: string, keep = journal().length) {
  const folder = join(scratch, `migrations-${keep}`);
  mkdirSync(join(folder, 'meta'), { recursive: true });
  const full = JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: JournalEntry[] };
  const entries = full.entries.slice(0, keep);
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...full, entries }));
  for (const entry of entries) copyFileSync(join(MIGRATIONS, `${entry.tag}.sql`), join(folder, `${entry.tag}.sql`));
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new Database(join(dataDir, 'hearth.db'));
  sqlite.pragma('journal_mode = WAL');
  migrate(drizzle(sqlite), { migrationsFolder: folder });
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.close();
  writeFileSync(join(dataDir, 'master.key'), randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
}

/** Marks a data dir's database as upgraded by a newer Hearth: one applied migration this build does not know. */
export function addFutureMigration(dataDir: string) {
  const newest = Math.max(...journal().map((e) => e.when));
  const sqlite = new Database(join(dataDir, 'hearth.db'));
  sqlite.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('f'.repeat(64), newest + 86_400_000);
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.close();
}

export function appliedMigrations(file: string): number {
  const sqlite = new Database(file, { readonly: true });
  try {
    return (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}
