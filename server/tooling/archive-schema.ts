/**
 * What an export archive holds, derived from the drizzle schema so that a table or column added later is
 * exported without touching this folder (an encrypted column must be declared in archive-secrets.ts: the
 * guard below refuses to start otherwise, rather than copy a ciphertext that only the source could read).
 */
import type Database from 'better-sqlite3';
import { getTableColumns, is } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../db/schema.ts';
import { webhookAttempts, webhookDeliveries } from '../webhooks/delivery-store.ts';
import { SECRET_COLUMNS, DIGEST_COLUMNS } from './archive-secrets.ts';
import { MIGRATIONS_DIR } from '../paths.ts';

export const ARCHIVE_FORMAT = 'hearth-export';
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

export type ColumnKind = 'string' | 'number' | 'boolean' | 'json' | 'buffer';

export interface ColumnSpec {
  /** The drizzle property name: the key of the column in a JSON line. */
  key: string;
  /** The SQL column name. */
  sql: string;
  kind: ColumnKind;
  notNull: boolean;
}

export interface TableSpec {
  /** The SQL table name: the archive's file is tables/<name>.jsonl. */
  name: string;
  /** Columns written to the archive (surrogate keys and lookup digests are left out). */
  columns: ColumnSpec[];
  /** Columns that identify a row across data dirs (the primary key, or the natural key behind an autoincrement). */
  identity: string[];
  /** The table's rows belong to an API key (have api_key_id). */
  tenant: boolean;
  /** `main`: hearth.db; `deliveries`: webhooks.db (delivery state, its own file), attached under that name. */
  database: 'main' | 'deliveries';
}

/** The name of the SQLite schema webhooks.db is attached under while exporting or importing. */
export const DELIVERIES_SCHEMA = 'deliveries';

/** The table's name for SQL, qualified with the attached database it lives in. */
export const qualified = (table: TableSpec) => (table.database === 'deliveries' ? `${DELIVERIES_SCHEMA}."${table.name}"` : `"${table.name}"`);

/**
 * Tables that are not exported: one-time sign-in links (valid one hour, stored only as a digest under the source's
 * master key, so they could not work on the target) and the CRDT update log (folded into one update per document).
 */
export const NOT_EXPORTED: Record<string, string> = {
  login_links: 'one-time sign-in links expire within the hour and are stored only as digests under the source master key',
  crdt_updates: 'folded into one merged Yjs update per document (crdt_documents.state)',
};

function kindOf(dataType: string, table: string, key: string): ColumnKind {
  if (dataType === 'string' || dataType === 'number' || dataType === 'boolean' || dataType === 'json' || dataType === 'buffer') return dataType;
  throw new Error(`export: ${table}.${key} has a column type (${dataType}) the archive format does not know`);
}

function describeTable(table: SQLiteTable, database: TableSpec['database']): TableSpec & { dependsOn: string[] } {
  const config = getTableConfig(table);
  const all = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    sql: column.name,
    kind: kindOf(column.dataType, config.name, key),
    notNull: column.notNull,
    primary: column.primary,
    unique: column.isUnique,
    autoIncrement: 'autoIncrement' in column && column.autoIncrement === true,
  }));
  const surrogate = all.find((c) => c.primary && c.autoIncrement);
  const composite = config.primaryKeys[0]?.columns.map((c) => all.find((a) => a.sql === c.name)!.key);
  const identity = surrogate ? all.filter((c) => c.unique).map((c) => c.key) : (composite ?? all.filter((c) => c.primary).map((c) => c.key));
  if (identity.length === 0 && !NOT_EXPORTED[config.name]) throw new Error(`export: ${config.name} has no key that identifies its rows across data dirs`);
  const digests = DIGEST_COLUMNS[config.name] ?? [];
  for (const column of all) {
    const encrypted = /Enc$/.test(column.key);
    if (encrypted && !SECRET_COLUMNS[config.name]?.[column.key] && !NOT_EXPORTED[config.name]) throw new Error(`export: ${config.name}.${column.key} looks encrypted but archive-secrets.ts does not say how to carry it`);
    if (/Digest$/.test(column.key) && !digests.includes(column.key) && !NOT_EXPORTED[config.name]) throw new Error(`export: ${config.name}.${column.key} looks like a keyed digest but archive-secrets.ts does not say how to recompute it`);
  }
  const columns = all
    .filter((c) => c !== surrogate && !digests.includes(c.key))
    .map(({ key, sql, kind, notNull }) => ({ key, sql, kind, notNull }));
  return {
    name: config.name,
    columns,
    identity,
    tenant: all.some((c) => c.sql === 'api_key_id'),
    database,
    dependsOn: config.foreignKeys.map((f) => getTableConfig(f.reference().foreignTable).name).filter((n) => n !== config.name),
  };
}

/** Every table of the schema, parents before children (the order rows are written and read back in). */
function orderedTables(): Array<TableSpec & { dependsOn: string[] }> {
  const specs = [
    ...(Object.values(schema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable)).map((table) => describeTable(table, 'main')),
    ...[webhookDeliveries, webhookAttempts].map((table) => describeTable(table, 'deliveries')),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const byName = new Map(specs.map((s) => [s.name, s]));
  const ordered: Array<TableSpec & { dependsOn: string[] }> = [];
  const visiting = new Set<string>();
  const visit = (spec: TableSpec & { dependsOn: string[] }) => {
    if (ordered.includes(spec)) return;
    if (visiting.has(spec.name)) throw new Error(`export: foreign keys form a cycle through ${spec.name}`);
    visiting.add(spec.name);
    for (const parent of spec.dependsOn) visit(byName.get(parent)!);
    visiting.delete(spec.name);
    ordered.push(spec);
  };
  for (const spec of specs) visit(spec);
  return ordered;
}

let archiveTables_: TableSpec[] | undefined;
/** The tables an archive holds, parents first (worked out on first use, so a schema problem fails the command, not the CLI's start). */
export function archiveTables(): TableSpec[] {
  return (archiveTables_ ??= orderedTables().filter((t) => !NOT_EXPORTED[t.name]));
}

export type Scope = { kind: 'all' } | { kind: 'workspace'; workspaceId: string } | { kind: 'apiKey'; apiKeyId: string; workspaceId: string };

/** The WHERE clause (with its parameters) that keeps a table's rows inside the scope. */
export function scopeFilter(table: TableSpec, scope: Scope): { where: string; params: string[] } {
  if (scope.kind === 'all') return { where: '1', params: [] };
  const keysOfWorkspace = 'api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?)';
  if (table.name === 'workspaces') return { where: 'id = ?', params: [scope.workspaceId] };
  if (table.name === 'api_keys') return scope.kind === 'workspace' ? { where: 'workspace_id = ?', params: [scope.workspaceId] } : { where: 'id = ?', params: [scope.apiKeyId] };
  if (table.name === 'mail_outbox') {
    // A workspace's own mail (login links) has no API key; a single key's export leaves it out.
    return scope.kind === 'workspace' ? { where: `workspace_id = ? OR ${keysOfWorkspace}`, params: [scope.workspaceId, scope.workspaceId] } : { where: 'api_key_id = ?', params: [scope.apiKeyId] };
  }
  if (!table.tenant) throw new Error(`export: ${table.name} has no api_key_id: say how a scoped export selects its rows`);
  return scope.kind === 'workspace' ? { where: keysOfWorkspace, params: [scope.workspaceId] } : { where: 'api_key_id = ?', params: [scope.apiKeyId] };
}

const MIGRATIONS = MIGRATIONS_DIR;

/** How many schema migrations this build has: the schema level of the databases it makes. */
export function buildSchemaLevel(): number {
  return readMigrationFiles({ migrationsFolder: MIGRATIONS }).length;
}

/** How many schema migrations a database has had applied (0 for a new file). */
export function databaseSchemaLevel(sqlite: Database.Database): number {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get() !== undefined;
  return hasTable ? (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n : 0;
}

/** A stored value as a JSON-line value: JSON columns parsed, booleans as booleans, bytes as base64. */
export function toArchiveValue(column: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.kind === 'json') return JSON.parse(value as string);
  if (column.kind === 'boolean') return value === 1 || value === true;
  if (column.kind === 'buffer') return Buffer.from(value as Uint8Array).toString('base64');
  return value;
}

/** A JSON-line value back to what SQLite stores, or a message saying what is wrong with it. */
export function toStoredValue(column: ColumnSpec, value: unknown): { ok: true; value: string | number | Buffer | null } | { ok: false; problem: string } {
  if (value === null) return column.notNull ? { ok: false, problem: `${column.key} must not be null` } : { ok: true, value: null };
  switch (column.kind) {
    case 'json':
      return { ok: true, value: JSON.stringify(value) };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value: value ? 1 : 0 } : { ok: false, problem: `${column.key} must be true or false` };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : { ok: false, problem: `${column.key} must be a number` };
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, problem: `${column.key} must be a string` };
    case 'buffer':
      return typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? { ok: true, value: Buffer.from(value, 'base64') } : { ok: false, problem: `${column.key} must be base64` };
  }
}
