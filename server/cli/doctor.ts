/**
 * The checks of `hearth doctor`. Each reads only: doctor never creates, migrates or repairs anything, so it is
 * safe on a data dir that a running server holds and on one that is broken.
 */
import { accessSync, constants, existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { inspectDatabaseFile } from '../db/inspect.ts';
import { KEY_FILE } from '../security/secrets.ts';
import { DATABASE_FILE, DELIVERY_FILE, LOCK_FILE } from '../data-files.ts';
import { runningServer } from '../server-lock.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail';
export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const format = (bytes: number) =>
  bytes >= GiB ? `${(bytes / GiB).toFixed(1)} GiB` : bytes >= MiB ? `${Math.round(bytes / MiB)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;

function checkDataDir(dataDir: string): CheckResult {
  const name = 'data dir';
  if (!existsSync(dataDir)) return { name, status: 'fail', message: `${dataDir} does not exist (npm start creates it at first start)` };
  if (!statSync(dataDir).isDirectory()) return { name, status: 'fail', message: `${dataDir} is not a directory` };
  try {
    accessSync(dataDir, constants.W_OK);
  } catch {
    return { name, status: 'fail', message: `${dataDir} is not writable by this user` };
  }
  return { name, status: 'ok', message: `${dataDir} exists and is writable` };
}

function checkMasterKey(dataDir: string): CheckResult {
  const name = 'master key';
  const file = join(dataDir, KEY_FILE);
  const hasDatabase = existsSync(join(dataDir, DATABASE_FILE));
  if (!existsSync(file)) {
    return hasDatabase
      ? { name, status: 'fail', message: `${file} is missing: the stored secrets cannot be decrypted; restore it from a backup` }
      : { name, status: 'warn', message: `${file} does not exist yet (created at first start)` };
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) return { name, status: 'fail', message: `${file} is not a 32-byte base64 key: the server refuses to start with it` };
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && mode !== 0o600) {
    return { name, status: 'warn', message: `${file} has mode 0${mode.toString(8)}, should be 0600: chmod 600 ${file}` };
  }
  return { name, status: 'ok', message: `${file} present, mode 0600` };
}

/** The database opens, passes PRAGMA integrity_check, and its schema against this build's migrations. */
function checkDatabase(dataDir: string): CheckResult[] {
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) return [{ name: 'database', status: 'warn', message: `${file} does not exist yet (created at first start)` }];
  const found = inspectDatabaseFile(file, { schema: true });
  if (found.state === 'unopenable') return [{ name: 'database', status: 'fail', message: `${file} cannot be opened: ${found.error}` }];
  if (found.state === 'unreadable') return [{ name: 'database', status: 'fail', message: `${file} cannot be read: ${found.error}; restore a backup` }];
  if (found.state === 'damaged') return [{ name: 'database', status: 'fail', message: `${file} is damaged: ${found.integrity}; restore a backup` }];
  const results: CheckResult[] = [{ name: 'database', status: 'ok', message: `${file} opens, integrity_check ok (${format(statSync(file).size)})` }];
  const schema = found.schema!;
  if (schema.unknown > 0) {
    results.push({
      name: 'schema',
      status: 'fail',
      message: `made by a newer Hearth: ${schema.unknown} applied migration(s) unknown to this build; upgrade Hearth`,
    });
  } else if (schema.applied === 0) {
    results.push({ name: 'schema', status: 'fail', message: `${file} is not a Hearth database (no migrations table)` });
  } else if (schema.pending > 0) {
    results.push({
      name: 'schema',
      status: 'warn',
      message: `${schema.pending} of ${schema.known} migrations pending: the next start applies them, after a backup into backups/`,
    });
  } else {
    results.push({ name: 'schema', status: 'ok', message: `up to date (${schema.known} migrations)` });
  }
  return results;
}

/** webhooks.db, the delivery state's own file (created at start when missing). */
function checkDeliveries(dataDir: string): CheckResult {
  const name = 'deliveries';
  const file = join(dataDir, DELIVERY_FILE);
  if (!existsSync(file)) return { name, status: 'ok', message: `${file} not there yet (created at start)` };
  const found = inspectDatabaseFile(file, { schema: false });
  if (found.state === 'damaged') return { name, status: 'fail', message: `${file} is damaged: ${found.integrity}; restore a backup` };
  if (found.state !== 'ok') return { name, status: 'fail', message: `${file} cannot be read: ${found.error}; restore a backup` };
  return { name, status: 'ok', message: `${file} opens, integrity_check ok` };
}

/** Room for the database to grow and for a backup (a migration takes one) beside it. */
function checkDisk(dataDir: string): CheckResult {
  const name = 'disk space';
  const stats = statfsSync(dataDir);
  const free = Number(stats.bavail) * Number(stats.bsize);
  const database = existsSync(join(dataDir, DATABASE_FILE)) ? statSync(join(dataDir, DATABASE_FILE)).size : 0;
  if (free < Math.max(64 * MiB, database))
    return { name, status: 'fail', message: `${format(free)} free: too little for the database to grow or be backed up` };
  if (free < Math.max(GiB, 2 * database))
    return { name, status: 'warn', message: `${format(free)} free: a backup of the ${format(database)} database would leave little room` };
  return { name, status: 'ok', message: `${format(free)} free` };
}

function portFree(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

/** Which Hearth server holds the data dir; if none, whether serve could listen on the configured port. */
async function checkServer(config: Config): Promise<CheckResult> {
  const name = 'server';
  const running = runningServer(config.dataDir);
  if (running) return { name, status: 'ok', message: `a Hearth server (pid ${running.pid}) is running on this data dir at ${running.url}` };
  const stale = existsSync(join(config.dataDir, LOCK_FILE));
  const staleNote = stale ? ` (a stale ${LOCK_FILE} of a server that did not stop cleanly is replaced at start)` : '';
  if (config.port === 0) return { name, status: stale ? 'warn' : 'ok', message: `no server running; port 0 picks a free port at start${staleNote}` };
  const error = await portFree(config.host, config.port);
  if (!error) return { name, status: stale ? 'warn' : 'ok', message: `no server running; port ${config.port} on ${config.host} is free${staleNote}` };
  if (error.code === 'EADDRINUSE') {
    return {
      name,
      status: 'fail',
      message: `port ${config.port} on ${config.host} is in use by another program (not a Hearth server on this data dir): pass --port or stop it`,
    };
  }
  return { name, status: 'fail', message: `cannot listen on ${config.host}:${config.port}: ${error.code ?? error.message}` };
}

export async function runChecks(config: Config): Promise<CheckResult[]> {
  const dataDir = checkDataDir(config.dataDir);
  // Without a data dir only the port can be checked.
  if (dataDir.status === 'fail') return [dataDir, await checkServer(config)];
  return [
    dataDir,
    checkMasterKey(config.dataDir),
    ...checkDatabase(config.dataDir),
    checkDeliveries(config.dataDir),
    checkDisk(config.dataDir),
    await checkServer(config),
  ];
}
