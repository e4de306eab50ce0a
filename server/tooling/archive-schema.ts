/**
 * What an export archive holds, derived from the stored tables (the drizzle schema, described by the storage layer:
 * db/archive/tables.ts) so that a table or column added later is exported without touching this folder (an
 * encrypted column must be declared in archive-secrets.ts: the guard below refuses to start otherwise, rather than
 * copy a ciphertext that only the source could read).
 */
import { storedTables, type ArchiveScope, type ColumnKind, type StoredTable } from '../db/repos/archive.ts';
import { SECRET_COLUMNS, DIGEST_COLUMNS } from './archive-secrets.ts';

export { buildSchemaLevel, toArchiveValue, toStoredValue } from '../db/repos/archive.ts';
export type { ColumnKind };

export const ARCHIVE_FORMAT = 'hearth-export';
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

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

/**
 * Tables that are not exported: one-time sign-in links (valid one hour, stored only as a digest under the source's
 * master key, so they could not work on the target), the CRDT update log (folded into one update per document) and the
 * master key's fingerprint (the target's database is checked against its own key).
 */
export const NOT_EXPORTED: Record<string, string> = {
  login_links: 'one-time sign-in links expire within the hour and are stored only as digests under the source master key',
  crdt_updates: 'folded into one merged Yjs update per document (crdt_documents.state)',
  master_key_check: "the fingerprint of the source's master key: the target keeps its own key's",
};

/** A stored table as the archive carries it, after the guards that keep secrets and digests from being copied as they are. */
function archiveTable(table: StoredTable): TableSpec {
  if (table.identity.length === 0) throw new Error(`export: ${table.name} has no key that identifies its rows across data dirs`);
  const digests = DIGEST_COLUMNS[table.name] ?? [];
  for (const column of table.columns) {
    const encrypted = /Enc$/.test(column.key);
    if (encrypted && !SECRET_COLUMNS[table.name]?.[column.key])
      throw new Error(`export: ${table.name}.${column.key} looks encrypted but archive-secrets.ts does not say how to carry it`);
    if (/Digest$/.test(column.key) && !digests.includes(column.key))
      throw new Error(`export: ${table.name}.${column.key} looks like a keyed digest but archive-secrets.ts does not say how to recompute it`);
  }
  return {
    name: table.name,
    columns: table.columns.filter((c) => !c.surrogate && !digests.includes(c.key)).map(({ key, sql, kind, notNull }) => ({ key, sql, kind, notNull })),
    identity: table.identity,
    tenant: table.tenant,
    database: table.database,
  };
}

let archiveTables_: TableSpec[] | undefined;
/** The tables an archive holds, parents first (worked out on first use, so a schema problem fails the command, not the CLI's start). */
export function archiveTables(): TableSpec[] {
  return (archiveTables_ ??= storedTables()
    .filter((t) => !NOT_EXPORTED[t.name])
    .map(archiveTable));
}

/** Which rows an archive holds: everything, one workspace (its API keys and all their data), or one API key. */
export type Scope = ArchiveScope;
