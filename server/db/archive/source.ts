// An export's reader: hearth.db opened read-only with webhooks.db attached, read in one read transaction (one instant
// of both files, even while a server writes) and page by page in rowid order, so that memory does not grow with the
// data.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { attachmentsDir, DATABASE_FILE, DELIVERY_FILE } from '../../data-files.ts';
import { databaseSchemaLevel } from './level.ts';
import type { StoredTable } from './tables.ts';

const PAGE = 1_000;

/** The name of the SQLite schema webhooks.db is attached under while exporting or importing. */
export const DELIVERIES_SCHEMA = 'deliveries';

/** What a scoped read names of a table. */
export type ArchiveTableRef = Pick<StoredTable, 'name' | 'tenant' | 'database'>;

/** Which rows an archive holds: everything, one workspace (its API keys and their data), or one API key. */
export type ArchiveScope = { kind: 'all' } | { kind: 'workspace'; workspaceId: string } | { kind: 'apiKey'; apiKeyId: string; workspaceId: string };

/** A row as stored, by SQL column name. */
export type StoredRow = Record<string, unknown>;

/** The table's name for SQL, qualified with the attached database it lives in. */
export const qualified = (table: ArchiveTableRef) => (table.database === 'deliveries' ? `${DELIVERIES_SCHEMA}."${table.name}"` : `"${table.name}"`);

/** The WHERE clause (`?` for its parameters, in order) that keeps a table's rows inside the scope; PostgreSQL's reader (pg-source.ts) numbers them. */
export function scopeFilter(table: ArchiveTableRef, scope: ArchiveScope): { where: string; params: string[] } {
  if (scope.kind === 'all') return { where: '1', params: [] };
  const keysOfWorkspace = 'api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?)';
  if (table.name === 'workspaces') return { where: 'id = ?', params: [scope.workspaceId] };
  if (table.name === 'api_keys')
    return scope.kind === 'workspace' ? { where: 'workspace_id = ?', params: [scope.workspaceId] } : { where: 'id = ?', params: [scope.apiKeyId] };
  if (table.name === 'mail_outbox') {
    // A workspace's own mail (login links) has no API key; a single key's export leaves it out.
    return scope.kind === 'workspace'
      ? { where: `workspace_id = ? OR ${keysOfWorkspace}`, params: [scope.workspaceId, scope.workspaceId] }
      : { where: 'api_key_id = ?', params: [scope.apiKeyId] };
  }
  if (!table.tenant) throw new Error(`export: ${table.name} has no api_key_id: say how a scoped export selects its rows`);
  return scope.kind === 'workspace' ? { where: keysOfWorkspace, params: [scope.workspaceId] } : { where: 'api_key_id = ?', params: [scope.apiKeyId] };
}

/**
 * Columns webhooks.db gained after its first schema (delivery-file.ts), with the value a row had before: a data dir
 * last opened by an older Hearth has a webhooks.db without them (export opens it read-only, so it is not upgraded),
 * and its rows are exported with these values, as an upgrade would have given them.
 */
const DELIVERY_COLUMNS_ADDED: Record<string, Record<string, string>> = {
  webhook_attempts: { request_headers: 'NULL', response_headers: 'NULL', response_headers_omitted: '0' },
};

/** A value, or a promise of it: SQLite's driver answers at once, PostgreSQL's (pg-source.ts) later. */
export type Awaitable<T> = T | Promise<T>;

/**
 * An archive's reader. SQLite's (below) answers synchronously, PostgreSQL's (pg-source.ts) with promises: the
 * tooling awaits every call, which changes nothing for a value that is already there.
 */
export interface ArchiveSource {
  /** Where the rows are read from, for messages: hearth.db's path, or the PostgreSQL database. */
  readonly file: string;
  /** How many schema migrations the database has had applied (for PostgreSQL: SQLite's count it stands for, when it is at this build's level). */
  schemaLevel(): Awaitable<number>;
  /** Attaches webhooks.db (when the data dir has one) and starts the read transaction: every read after it sees one instant. */
  begin(): Awaitable<void>;
  /** Whether the table's file is there (webhooks.db may be missing). */
  readable(table: ArchiveTableRef): boolean;
  /** The workspace of an API key, or undefined when there is no such key. */
  workspaceOfApiKey(apiKeyId: string): Awaitable<string | undefined>;
  hasWorkspace(workspaceId: string): Awaitable<boolean>;
  /** How many of the table's rows are inside the scope. */
  count(table: ArchiveTableRef, scope: ArchiveScope): Awaitable<number>;
  /** The table's rows inside the scope, `columns` of each (SQL names), a page at a time in rowid order (PostgreSQL: identity or primary key order). */
  pages(table: ArchiveTableRef, columns: readonly string[], scope: ArchiveScope): Iterable<StoredRow[]> | AsyncIterable<StoredRow[]>;
  /** The Yjs updates logged after a CRDT document's snapshot (a crdt_documents row), oldest first. */
  documentLog(document: StoredRow): Awaitable<Buffer[]>;
  /**
   * The bytes of a recording's attachment (a recording_attachments row's storage key), or undefined when they are
   * missing: a file of the data dir's attachments folder on SQLite, a row of attachment_blobs on PostgreSQL (read in
   * the read transaction).
   */
  attachment(storageKey: string): Awaitable<Buffer | undefined>;
  /** Ends the read transaction. */
  end(): Awaitable<void>;
  close(): Awaitable<void>;
}

/** Opens the data dir's database for reading (read-only: an export never writes, and may run beside a server). */
export function openArchiveSource(dataDir: string): ArchiveSource {
  const file = join(dataDir, DATABASE_FILE);
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  let hasDeliveries = false;
  let crdtLog: Database.Statement | undefined;
  const readable = (table: ArchiveTableRef) => table.database === 'main' || hasDeliveries;
  try {
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return {
    file,
    schemaLevel: () => databaseSchemaLevel(sqlite),
    begin() {
      // Delivery state lives in its own file (webhooks.db): read in the same read transaction, attached.
      const deliveryFile = join(dataDir, DELIVERY_FILE);
      hasDeliveries = existsSync(deliveryFile);
      if (hasDeliveries) sqlite.prepare(`ATTACH DATABASE ? AS ${DELIVERIES_SCHEMA}`).run(deliveryFile);
      sqlite.exec('BEGIN');
    },
    readable,
    workspaceOfApiKey: (apiKeyId) =>
      (sqlite.prepare('SELECT workspace_id AS workspaceId FROM api_keys WHERE id = ?').get(apiKeyId) as { workspaceId: string } | undefined)?.workspaceId,
    hasWorkspace: (workspaceId) => sqlite.prepare('SELECT 1 FROM workspaces WHERE id = ?').get(workspaceId) !== undefined,
    count(table, scope) {
      if (!readable(table)) return 0;
      const filter = scopeFilter(table, scope);
      return (sqlite.prepare(`SELECT count(*) AS n FROM ${qualified(table)} WHERE ${filter.where}`).get(...filter.params) as { n: number }).n;
    },
    *pages(table, columns, scope) {
      const filter = scopeFilter(table, scope);
      if (!readable(table)) return;
      const added = table.database === 'deliveries' ? DELIVERY_COLUMNS_ADDED[table.name] : undefined;
      const present = added
        ? new Set((sqlite.prepare('SELECT name FROM pragma_table_info(?, ?)').all(table.name, DELIVERIES_SCHEMA) as Array<{ name: string }>).map((c) => c.name))
        : undefined;
      const selected = columns.map((c) => (present && !present.has(c) && added?.[c] !== undefined ? `${added[c]} AS "${c}"` : `"${c}"`));
      const page = sqlite.prepare(
        `SELECT rowid AS "__rowid", ${selected.join(', ')} FROM ${qualified(table)} WHERE (${filter.where}) AND rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
      );
      for (let after = -Infinity; ; ) {
        const batch = page.all(...filter.params, after) as StoredRow[];
        if (batch.length === 0) return;
        after = batch[batch.length - 1]!.__rowid as number;
        yield batch;
      }
    },
    documentLog(document) {
      crdtLog ??= sqlite.prepare(
        'SELECT "update" FROM crdt_updates WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ? ORDER BY seq',
      );
      return (crdtLog.all(document.api_key_id, document.organization_id, document.document_id, document.editor_id) as Array<{ update: Buffer }>).map(
        (logged) => logged.update,
      );
    },
    attachment(storageKey) {
      try {
        return readFileSync(join(attachmentsDir(dirname(file)), storageKey));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    end: () => void sqlite.exec('COMMIT'),
    close: () => void sqlite.close(),
  };
}
