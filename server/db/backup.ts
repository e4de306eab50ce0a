import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KEY_FILE as MASTER_KEY_FILE } from '../security/secrets.ts';
import { VERSION } from '../version.ts';
import { narrowToOwner, OWNER_FILE_MODE, ownerOnlyFile } from '../security/file-modes.ts';
import { CREDENTIALS_FILE, DATABASE_FILE, DELIVERY_FILE, LOCK_FILE } from '../data-files.ts';
import { runningServer } from '../server-lock.ts';
/** Written by a running server into its data dir (pid and URL), removed when it stops. */
const MANIFEST = 'manifest.json';
/** Steps reported to `onStep` by a backup (database, deliveries, key, credentials, manifest) and by a restore (check, database, deliveries, key, credentials). */
export const BACKUP_STEPS = 5;
export const RESTORE_STEPS = 5;

/**
 * An online, consistent copy of a data dir, safe while the server writes: `VACUUM INTO` copies the database
 * inside one read transaction, so the copy is the database as of one instant (WAL readers never block the
 * writer). SQLite's incremental backup API restarts whenever another connection writes, which under steady load
 * may never finish; VACUUM INTO cannot be starved. webhooks.db (delivery state), the master key (without which the
 * stored secrets cannot be decrypted) and credentials.json are copied too, with a manifest.
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
    ownerOnlyFile(join(outDir, DATABASE_FILE));
    db.prepare('VACUUM INTO ?').run(join(outDir, DATABASE_FILE));
  } finally {
    db.close();
  }
  onStep(DATABASE_FILE);
  // Webhook delivery state has its own file. Copied after hearth.db: every delivery of an event the copied outbox
  // has already handed over is then in the copy (a delivery made since may be there too, and is sent once).
  if (existsSync(join(dataDir, DELIVERY_FILE))) vacuumInto(join(dataDir, DELIVERY_FILE), join(outDir, DELIVERY_FILE));
  onStep(DELIVERY_FILE);
  for (const file of [MASTER_KEY_FILE, CREDENTIALS_FILE]) {
    if (existsSync(join(dataDir, file))) copyOwnerOnly(join(dataDir, file), join(outDir, file));
    onStep(file);
  }
  const manifest = { format: 1, hearthVersion: VERSION, migrations, createdAt: new Date().toISOString(), bytes: statSync(join(outDir, DATABASE_FILE)).size };
  writeFileSync(join(outDir, MANIFEST), JSON.stringify(manifest, null, 2), { mode: OWNER_FILE_MODE });
  onStep(MANIFEST);
  return { outDir, ...manifest };
}

function vacuumInto(source: string, target: string) {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    ownerOnlyFile(target);
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

/** A copy that is the owner's alone, whatever the source's mode was. */
function copyOwnerOnly(from: string, to: string) {
  copyFileSync(from, to);
  narrowToOwner(to);
}

function checkIntegrity(file: string, what: string) {
  const check = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const result = check.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new Error(`The backup's ${what} is damaged: ${String(result)}`);
  } finally {
    check.close();
  }
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
  if (!existsSync(join(fromDir, MANIFEST)) || !existsSync(join(fromDir, DATABASE_FILE)))
    throw new Error(`${fromDir} is not a Hearth backup (no manifest.json or hearth.db)`);
  if (!existsSync(join(fromDir, MASTER_KEY_FILE))) throw new Error(`${fromDir} has no master.key: its secrets could not be read`);
  checkIntegrity(join(fromDir, DATABASE_FILE), 'database');
  const hasDeliveries = existsSync(join(fromDir, DELIVERY_FILE));
  if (hasDeliveries) checkIntegrity(join(fromDir, DELIVERY_FILE), DELIVERY_FILE);
  onStep('integrity check');
  if (existsSync(join(dataDir, DATABASE_FILE)) && !options.force) throw new Error(`${dataDir} already holds a Hearth database: pass --force to replace it`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const stale of [`${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DELIVERY_FILE}-wal`, `${DELIVERY_FILE}-shm`, LOCK_FILE])
    rmSync(join(dataDir, stale), { force: true });
  copyOwnerOnly(join(fromDir, DATABASE_FILE), join(dataDir, DATABASE_FILE));
  onStep(DATABASE_FILE);
  // A backup from before webhooks.db keeps its deliveries in hearth.db (moved out at start): the replaced data
  // dir's delivery file would not match it.
  if (hasDeliveries) copyOwnerOnly(join(fromDir, DELIVERY_FILE), join(dataDir, DELIVERY_FILE));
  else rmSync(join(dataDir, DELIVERY_FILE), { force: true });
  onStep(DELIVERY_FILE);
  copyOwnerOnly(join(fromDir, MASTER_KEY_FILE), join(dataDir, MASTER_KEY_FILE));
  onStep(MASTER_KEY_FILE);
  if (existsSync(join(fromDir, CREDENTIALS_FILE))) copyOwnerOnly(join(fromDir, CREDENTIALS_FILE), join(dataDir, CREDENTIALS_FILE));
  onStep(CREDENTIALS_FILE);
  return { dataDir, from: fromDir };
}
