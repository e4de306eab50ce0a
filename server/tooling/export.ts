import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as Y from 'yjs';
import { attachmentsDir, DATABASE_FILE } from '../data-files.ts';
import { openArchiveSource, openPgArchiveSource, type ArchiveSource, type StoredRow } from '../db/repos/archive.ts';
import { createSecrets, KEY_FILE, type Secrets } from '../security/secrets.ts';
import { VERSION } from '../version.ts';
import { HashedLineWriter } from './archive-files.ts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  archiveTables,
  buildSchemaLevel,
  MANIFEST_FILE,
  NOT_EXPORTED,
  toArchiveValue,
  type Scope,
  type TableSpec,
} from './archive-schema.ts';
import { OMITTED, SECRET_COLUMNS, sealWithPassphrase, type ArchiveSecrets, passphraseProblem } from './archive-secrets.ts';
import type { ExportOptions, ExportSummary, Manifest } from './transfer.ts';

type Row = Record<string, unknown>;

function readMasterKey(dataDir: string): Buffer {
  const file = join(dataDir, KEY_FILE);
  if (!existsSync(file)) throw new Error(`${dataDir} has no ${KEY_FILE}: its secrets cannot be read (export with --secrets omit)`);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} is not a 32-byte base64 key`);
  return key;
}

async function resolveScope(source: ArchiveSource, options: ExportOptions): Promise<Scope> {
  if (options.workspaceId !== undefined && options.apiKeyId !== undefined) throw new Error('Export one workspace or one API key, not both');
  if (options.apiKeyId !== undefined) {
    const workspaceId = await source.workspaceOfApiKey(options.apiKeyId);
    if (workspaceId === undefined) throw new Error(`No API key ${options.apiKeyId} in this data dir`);
    return { kind: 'apiKey', apiKeyId: options.apiKeyId, workspaceId };
  }
  if (options.workspaceId !== undefined) {
    if (!(await source.hasWorkspace(options.workspaceId))) throw new Error(`No workspace ${options.workspaceId} in this data dir`);
    return { kind: 'workspace', workspaceId: options.workspaceId };
  }
  return { kind: 'all' };
}

/** The document as one Yjs update: its snapshot and every update logged after it (`log`), merged. */
function mergedDocument(row: StoredRow, log: readonly Buffer[]): Buffer | null {
  const parts: Uint8Array[] = [];
  if (row.snapshot) parts.push(row.snapshot as Buffer);
  for (const update of log) parts.push(update);
  if (parts.length === 0) return null;
  return Buffer.from(parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts));
}

/**
 * Writes the state of a data dir (everything, one workspace, or one API key) as an archive directory. The
 * database is read in one read transaction (the archive is one instant, even while a server writes) page by page,
 * and every table is written line by line, so memory does not grow with the data. The archive is assembled in a
 * sibling directory and renamed into place at the end: a failed export leaves no half archive.
 *
 * The rows are read from the data dir's SQLite files, or from a PostgreSQL database (`options.database`; the data
 * dir then gives the master key, and the attachments' bytes come from the database): the archive is the same
 * either way.
 */
export async function exportArchive(options: ExportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const dataDir = resolve(options.dataDir);
  const out = resolve(options.out);
  if (options.secrets !== 'include' && options.secrets !== 'omit') throw new Error(`secrets must be include or omit, not "${String(options.secrets)}"`);
  if (options.secrets === 'include' && !options.passphrase)
    throw new Error('Exporting secrets needs a passphrase to seal them with (--passphrase or HEARTH_EXPORT_PASSPHRASE), or --secrets omit');
  const weak = options.secrets === 'include' && options.passphrase ? passphraseProblem(options.passphrase) : undefined;
  if (weak) throw new Error(weak);
  const postgres = options.database?.engine === 'postgres' ? options.database : undefined;
  if (!postgres && !existsSync(join(dataDir, DATABASE_FILE))) throw new Error(`No Hearth database in ${dataDir}`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: export into a new directory`);

  const database = postgres ? await openPgArchiveSource(postgres.url) : openArchiveSource(dataDir);
  const file = database.file;
  const partial = `${out}.partial-${process.pid}`;
  try {
    const level = await database.schemaLevel();
    const buildLevel = buildSchemaLevel();
    if (level > buildLevel)
      throw new Error(`${file} was made by a newer Hearth (schema level ${level}, this build knows ${buildLevel}): export it with that Hearth`);
    if (level < buildLevel)
      throw new Error(`${file} is at schema level ${level}, older than this Hearth's ${buildLevel}: start the server once on it to upgrade it, then export`);

    // one read transaction over hearth.db and webhooks.db (attached): the archive is one instant
    await database.begin();
    const source = options.secrets === 'include' ? createSecrets(readMasterKey(dataDir)) : undefined;
    const sealed = options.secrets === 'include' ? sealWithPassphrase(options.passphrase!) : undefined;
    const scope = await resolveScope(database, options);

    rmSync(partial, { recursive: true, force: true });
    mkdirSync(join(partial, 'tables'), { recursive: true, mode: 0o700 });
    mkdirSync(join(partial, 'files', 'attachments'), { recursive: true, mode: 0o700 });

    const counts: number[] = [];
    for (const table of archiveTables()) counts.push(await database.count(table, scope));
    const attachmentCount = counts[archiveTables().findIndex((t) => t.name === 'recording_attachments')] ?? 0;
    const total = counts.reduce((a, b) => a + b, 0) + attachmentCount;
    let done = 0;
    const progress = (label: string) => options.onProgress?.(done, total, label);

    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      formatVersion: ARCHIVE_FORMAT_VERSION,
      hearthVersion: VERSION,
      schemaLevel: level,
      createdAt: new Date().toISOString(),
      scope,
      secrets: sealed ? sealed.manifest : ({ mode: 'omit' } satisfies ArchiveSecrets),
      tables: [],
      files: {},
      notExported: NOT_EXPORTED,
      omittedSecrets: [],
    };
    const omitted = new Map<string, { table: string; column: string; label: string; rows: number }>();
    const countOmitted = (table: string, column: string, label: string) => {
      const id = `${table}.${column}`;
      const entry = omitted.get(id) ?? { table, column, label, rows: 0 };
      entry.rows++;
      omitted.set(id, entry);
    };
    const attachments = attachmentsDir(dataDir);

    for (const table of archiveTables()) {
      const parentOnly = scope.kind === 'apiKey' && table.name === 'workspaces';
      const relative = `tables/${table.name}.jsonl`;
      const writer = new HashedLineWriter(join(partial, relative));
      let rows = 0;
      for await (const batch of database.pages(
        table,
        table.columns.map((c) => c.sql),
        scope,
      )) {
        for (const row of batch) {
          done++;
          const log = table.name === 'crdt_documents' ? await database.documentLog(row) : [];
          const line = archiveRow(table, row, { source, sealer: sealed?.sealer, omitAll: options.secrets === 'omit' || parentOnly, countOmitted, log });
          if (!line) continue;
          writer.line(JSON.stringify(line));
          rows++;
          if (table.name === 'recording_attachments') {
            const key = row.storage_key as string;
            const bytes = await database.attachment(key);
            const where = postgres ? `attachment ${key} of the database` : `attachment file ${join(attachments, key)}`;
            if (!bytes) throw new Error(`The ${where} is missing: the data is damaged`);
            const sha256 = createHash('sha256').update(bytes).digest('hex');
            if (sha256 !== row.sha256) throw new Error(`The ${where} does not match its recorded sha256: the data is damaged`);
            writeFileSync(join(partial, 'files', 'attachments', key), bytes, { mode: 0o600 });
            manifest.files[`files/attachments/${key}`] = { sha256, bytes: bytes.length };
            done++;
          }
        }
        progress(table.name);
      }
      manifest.files[relative] = writer.close();
      manifest.tables.push({
        name: table.name,
        file: relative,
        rows,
        columns: table.columns.map((c) => c.key),
        identity: table.identity,
        ...(parentOnly ? { parentOnly } : {}),
      });
      progress(table.name);
    }
    await database.end();
    manifest.omittedSecrets = [...omitted.values()];
    writeFileSync(join(partial, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    if (existsSync(out)) rmSync(out, { recursive: true });
    renameSync(partial, out);
    const bytes = Object.values(manifest.files).reduce((sum, f) => sum + f.bytes, 0);
    return {
      out,
      scope,
      secrets: options.secrets,
      tables: Object.fromEntries(manifest.tables.map((t) => [t.name, t.rows])),
      rows: manifest.tables.reduce((sum, t) => sum + t.rows, 0),
      files: attachmentCount,
      bytes,
      durationMs: Date.now() - started,
      omittedSecrets: manifest.omittedSecrets,
    };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    await database.close();
  }
}

/** One stored row as its archive line; undefined when the row is left out (a secret-only row without secrets). */
function archiveRow(
  table: TableSpec,
  row: StoredRow,
  context: {
    source: Secrets | undefined;
    sealer: Secrets | undefined;
    omitAll: boolean;
    countOmitted: (table: string, column: string, label: string) => void;
    /** A crdt_documents row's update log (documentLog), merged into its snapshot. */
    log: readonly Buffer[];
  },
): Row | undefined {
  const line: Row = {};
  for (const column of table.columns) {
    let value = row[column.sql];
    const secret = SECRET_COLUMNS[table.name]?.[column.key];
    if (secret && value !== null) {
      if (context.omitAll || !context.source || !context.sealer) {
        context.countOmitted(table.name, column.key, secret.label);
        if ('dropRow' in secret.whenOmitted) return undefined;
        line[column.key] = OMITTED;
      } else {
        line[column.key] = context.sealer.encrypt(context.source.decrypt(value as string));
      }
      continue;
    }
    if (table.name === 'crdt_documents' && column.key === 'snapshot') value = mergedDocument(row, context.log);
    if (table.name === 'crdt_documents' && column.key === 'updateCount') value = 0;
    line[column.key] = toArchiveValue(column, value);
  }
  return line;
}

/**
 * Exports a PostgreSQL database's rows as an archive (`hearth export` when the server runs on PostgreSQL): the same
 * archive as from a data dir's SQLite files. `dataDir` is the server's data dir: its master key opens the stored
 * secrets (with `secrets: 'include'`), and its attachments directory holds the files the recordings name.
 */
export function exportArchiveFromPostgres(out: string, options: Omit<ExportOptions, 'out' | 'database'> & { databaseUrl: string }): Promise<ExportSummary> {
  const { databaseUrl, ...rest } = options;
  return exportArchive({ ...rest, out, database: { engine: 'postgres', url: databaseUrl } });
}
