import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KEY_FILE as MASTER_KEY_FILE } from '../security/secrets.ts';
import { VERSION } from '../version.ts';
import { CREDENTIALS_FILE } from './bootstrap.ts';

export const DATABASE_FILE = 'hearth.db';
/** Written by a running server into its data dir (pid and URL), removed when it stops. */
export const LOCK_FILE = 'server.lock';
const MANIFEST = 'manifest.json';
/** Steps reported to `onStep` by a backup (database, key, credentials, manifest) and by a restore (check, database, key, credentials). */
export const BACKUP_STEPS = 4;
export const RESTORE_STEPS = 4;

export function writeServerLock(dataDir: string, url: string) {
  writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: process.pid, url, startedAt: new Date().toISOString() }), { mode: 0o600 });
}

export function removeServerLock(dataDir: string) {
  rmSync(join(dataDir, LOCK_FILE), { force: true });
}

/** The server running on this data dir (its lock names a live process), or null (none, or a crashed one's stale lock). */
export function runningServer(dataDir: string): { pid: number; url: string } | null {
  const file = join(dataDir, LOCK_FILE);
  if (!existsSync(file)) return null;
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; url: string };
    process.kill(lock.pid, 0);
    return lock;
  } catch {
    return null;
  }
}

/**
 * An online, consistent copy of a data dir, safe while the server writes: `VACUUM INTO` copies the database
 * inside one read transaction, so the copy is the database as of one instant (WAL readers never block the
 * writer). SQLite's incremental backup API restarts whenever another connection writes, which under steady load
 * may never finish; VACUUM INTO cannot be starved. The master key (without which the stored secrets cannot be
 * decrypted) and credentials.json are copied too, with a manifest.
 */
export function backupDataDir(dataDir: string, outDir: string, onStep: (step: string) => void = () => undefined) {
  const source = join(dataDir, DATABASE_FILE);
  if (!existsSync(source)) throw new Error(`No Hearth database in ${dataDir}`);
  if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new Error(`${outDir} is not empty: back up into a new directory`);
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  let migrations = 0;
  try {
    db.pragma('busy_timeout = 5000');
    migrations = (db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
    db.prepare('VACUUM INTO ?').run(join(outDir, DATABASE_FILE));
  } finally {
    db.close();
  }
  onStep(DATABASE_FILE);
  for (const file of [MASTER_KEY_FILE, CREDENTIALS_FILE]) {
    if (existsSync(join(dataDir, file))) copyFileSync(join(dataDir, file), join(outDir, file));
    onStep(file);
  }
  const manifest = { format: 1, hearthVersion: VERSION, migrations, createdAt: new Date().toISOString(), bytes: statSync(join(outDir, DATABASE_FILE)).size };
  writeFileSync(join(outDir, MANIFEST), JSON.stringify(manifest, null, 2));
  onStep(MANIFEST);
  return { outDir, ...manifest };
}

/**
 * Puts a backup in place as a data dir. Refuses while a server runs on that data dir, refuses to replace an
 * existing database without `force`, and checks the backup (manifest, master key, `PRAGMA integrity_check`)
 * before touching anything.
 */
export function restoreDataDir(fromDir: string, dataDir: string, options: { force?: boolean; onStep?: (step: string) => void } = {}) {
  const onStep = options.onStep ?? (() => undefined);
  const running = runningServer(dataDir);
  if (running) throw new Error(`A Hearth server (pid ${running.pid}, ${running.url}) is running on ${dataDir}: stop it before restoring`);
  if (!existsSync(join(fromDir, MANIFEST)) || !existsSync(join(fromDir, DATABASE_FILE))) throw new Error(`${fromDir} is not a Hearth backup (no manifest.json or hearth.db)`);
  if (!existsSync(join(fromDir, MASTER_KEY_FILE))) throw new Error(`${fromDir} has no master.key: its secrets could not be read`);
  const check = new Database(join(fromDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const result = check.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new Error(`The backup's database is damaged: ${String(result)}`);
  } finally {
    check.close();
  }
  onStep('integrity check');
  if (existsSync(join(dataDir, DATABASE_FILE)) && !options.force) throw new Error(`${dataDir} already holds a Hearth database: pass --force to replace it`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const stale of [`${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, LOCK_FILE]) rmSync(join(dataDir, stale), { force: true });
  copyFileSync(join(fromDir, DATABASE_FILE), join(dataDir, DATABASE_FILE));
  onStep(DATABASE_FILE);
  copyFileSync(join(fromDir, MASTER_KEY_FILE), join(dataDir, MASTER_KEY_FILE));
  onStep(MASTER_KEY_FILE);
  if (existsSync(join(fromDir, CREDENTIALS_FILE))) copyFileSync(join(fromDir, CREDENTIALS_FILE), join(dataDir, CREDENTIALS_FILE));
  onStep(CREDENTIALS_FILE);
  return { dataDir, from: fromDir };
}
