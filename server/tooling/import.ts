import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { attachmentsDir, DATABASE_FILE, DELIVERY_FILE } from '../data-files.ts';
import { openArchiveTarget, openPgArchiveTarget, schemaLevelOfFile, type ArchiveTarget } from '../db/repos/archive.ts';
import { createSecrets, KEY_FILE, loadOrCreateMasterKey, masterKeyIdentity, type Secrets } from '../security/secrets.ts';
import { runningServer } from '../server-lock.ts';
import { ArchiveError, archivePath, readManifest, verifyFiles } from './archive-manifest.ts';
import { archiveTables, buildSchemaLevel } from './archive-schema.ts';
import { openWithPassphrase, SECRET_COLUMNS } from './archive-secrets.ts';
import { createRowWriter, type ImportCounters } from './import-rows.ts';
import type { ImportOptions, ImportSummary } from './transfer.ts';
import { narrowToOwner } from '../security/file-modes.ts';

export { ArchiveError };

const CONFLICT_POLICIES = ['fail', 'skip', 'replace'] as const;

/** Refuses a target whose database this build would have to migrate (or cannot read) before importing into it. */
function checkTargetSchema(file: string) {
  if (!existsSync(file)) return;
  const level = schemaLevelOfFile(file);
  const buildLevel = buildSchemaLevel();
  if (level > buildLevel)
    throw new ArchiveError(`${file} was made by a newer Hearth (schema level ${level}, this build ${buildLevel}): import with that Hearth`);
  if (level > 0 && level < buildLevel)
    throw new ArchiveError(
      `${file} is at schema level ${level}, older than this Hearth's ${buildLevel}: start the server once on it to upgrade it, then import`,
    );
}

/**
 * Opens a PostgreSQL database for an import (refused when it holds secrets under another master key than the data
 * dir's, is at another schema level, or has a Hearth server connected); a refusal removes the key and the directory
 * the import made, as a failed import does.
 */
async function openPostgresTarget(url: string, dataDir: string, key: Secrets, made: { hadKey: boolean; createdDir: boolean }): Promise<ArchiveTarget> {
  const keyFile = join(dataDir, KEY_FILE);
  try {
    return await openPgArchiveTarget(url, { masterKey: masterKeyIdentity(key, keyFile) });
  } catch (error) {
    if (!made.hadKey) rmSync(keyFile, { force: true });
    if (made.createdDir && readdirSync(dataDir).length === 0) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Imports an archive into a data dir (empty, or populated: the conflict policy decides what happens to rows that
 * exist already). Every file is checked against the manifest's checksums first; then every row is written in one
 * transaction, read line by line: a malformed line, a row whose parent is missing, or a conflict under `fail`
 * rolls everything back, removes the attachment files copied so far (and the database and key if the data dir
 * had none), and names the file and line.
 *
 * The rows go into the data dir's SQLite files, or into a PostgreSQL database (`options.database`: migrated by the
 * PostgreSQL engine when it has no schema yet; the data dir then keeps the master key, and the attachments' bytes go
 * into the database with the rows).
 */
export async function importArchive(options: ImportOptions): Promise<ImportSummary> {
  const started = Date.now();
  const dataDir = resolve(options.dataDir);
  const from = resolve(options.from);
  const conflict = options.conflict ?? 'fail';
  if (!CONFLICT_POLICIES.includes(conflict)) throw new ArchiveError(`conflict must be fail, skip or replace, not "${String(conflict)}"`);
  const running = runningServer(dataDir);
  if (running)
    throw new ArchiveError(
      `A Hearth server (pid ${running.pid}, ${running.url}) is running on ${dataDir}: stop it before importing (it keeps state in memory)`,
    );

  const manifest = readManifest(from);
  const opener = manifest.secrets.mode === 'include' ? openWithPassphrase(manifest.secrets, options.passphrase) : undefined;
  const total = Object.keys(manifest.files).length + manifest.tables.reduce((sum, t) => sum + t.rows, 0);
  let done = 0;
  await verifyFiles(from, manifest, () => {
    done++;
    if (done % 100 === 0) options.onProgress?.(done, total, 'checksums');
  });
  options.onProgress?.(done, total, 'checksums');

  const postgres = options.database?.engine === 'postgres' ? options.database : undefined;
  const file = join(dataDir, DATABASE_FILE);
  if (!postgres) checkTargetSchema(file);
  const createdDir = !existsSync(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const hadDatabase = existsSync(file);
  const hadKey = existsSync(join(dataDir, KEY_FILE));
  const target = createSecrets(loadOrCreateMasterKey(dataDir));
  const deliveryFile = join(dataDir, DELIVERY_FILE);
  const hadDeliveries = existsSync(deliveryFile);
  const database = postgres ? await openPostgresTarget(postgres.url, dataDir, target, { hadKey, createdDir }) : openArchiveTarget(dataDir);
  // Delivery state has its own file on SQLite (created with its schema when missing), attached so that one transaction covers both.
  await database.attachDeliveries();
  const copied: string[] = [];
  const counters: ImportCounters = { tables: {}, generated: new Map(), dropped: new Map() };
  const attachmentKeys: string[] = [];
  // Rows that are nothing but a secret were left out at export (AI provider keys): the summary says so.
  for (const omitted of Array.isArray(manifest.omittedSecrets) ? manifest.omittedSecrets : []) {
    const rule = SECRET_COLUMNS[omitted.table]?.[omitted.column];
    if (rule && 'dropRow' in rule.whenOmitted) counters.dropped.set(omitted.table, { table: omitted.table, label: rule.label, rows: omitted.rows });
  }
  try {
    await database.begin();
    const writer = await createRowWriter(database, { manifest, conflict, opener, target, counters, dataDir: postgres ? database.file : dataDir });
    for (const table of manifest.tables) {
      const spec = archiveTables().find((t) => t.name === table.name)!;
      const lines = createInterface({ input: createReadStream(archivePath(from, table.file)), crlfDelay: Infinity });
      let lineNumber = 0;
      for await (const line of lines) {
        lineNumber++;
        const where = `${table.file} line ${lineNumber}`;
        const outcome = await writer.write(spec, table, line, where);
        if (outcome.storageKey) attachmentKeys.push(outcome.storageKey);
        done++;
        if (done % 1_000 === 0) options.onProgress?.(done, total, table.name);
      }
      if (lineNumber !== table.rows)
        throw new ArchiveError(`${table.file} has ${lineNumber} lines but ${'manifest.json'} says ${table.rows}: the archive is incomplete`);
      options.onProgress?.(done, total, table.name);
    }
    const attachments = attachmentsDir(dataDir);
    if (!database.putAttachment) mkdirSync(attachments, { recursive: true, mode: 0o700 });
    for (const key of attachmentKeys) {
      const relative = `files/attachments/${key}`;
      if (!manifest.files[relative]) throw new ArchiveError(`recording_attachments: the file of attachment ${key} (${relative}) is not in the archive`);
      // PostgreSQL keeps the bytes in the database, in the import's transaction; SQLite in files, copied here
      if (database.putAttachment) {
        await database.putAttachment(key, readFileSync(archivePath(from, relative)), conflict === 'replace');
        continue;
      }
      const destination = join(attachments, key);
      if (existsSync(destination) && conflict !== 'replace') continue;
      if (!existsSync(destination)) copied.push(destination);
      copyFileSync(archivePath(from, relative), destination);
      narrowToOwner(destination);
    }
    await database.commit();
  } catch (error) {
    await database.rollback();
    for (const path of copied) rmSync(path, { force: true });
    await database.close();
    if (!postgres && !hadDatabase) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    if (!postgres && !hadDeliveries) for (const suffix of ['', '-wal', '-shm']) rmSync(`${deliveryFile}${suffix}`, { force: true });
    if (!hadKey) rmSync(join(dataDir, KEY_FILE), { force: true });
    if (createdDir && readdirSync(dataDir).every((name) => name === 'attachments')) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  await database.close();
  const tables = counters.tables;
  const sum = (pick: 'inserted' | 'replaced' | 'skipped') => Object.values(tables).reduce((s, t) => s + t[pick], 0);
  return {
    dataDir,
    from,
    scope: manifest.scope,
    conflict,
    tables,
    rows: { inserted: sum('inserted'), replaced: sum('replaced'), skipped: sum('skipped') },
    files: attachmentKeys.length,
    durationMs: Date.now() - started,
    generatedSecrets: [...counters.generated.values()],
    droppedSecretRows: [...counters.dropped.values()],
  };
}

/**
 * Imports an archive into a PostgreSQL database (`hearth import` when the server runs on PostgreSQL): every row of
 * it (or of the one workspace or key it holds) in one transaction, secrets sealed again under the master key of
 * `dataDir` (the server's data dir); the attachments' bytes go into the database with the rows. A database without Hearth's schema
 * is migrated first; one at another schema level, holding secrets under another master key, or with a Hearth server
 * connected to it is refused.
 */
export function importArchiveIntoPostgres(
  from: string,
  options: Omit<ImportOptions, 'from' | 'database' | 'conflict'> & { databaseUrl: string; conflict?: ImportOptions['conflict'] },
): Promise<ImportSummary> {
  const { databaseUrl, conflict, ...rest } = options;
  return importArchive({ ...rest, from, conflict: conflict ?? 'fail', database: { engine: 'postgres', url: databaseUrl } });
}
