// An export's reader on PostgreSQL: the same reader as source.ts's (its interface is the contract) over a database
// migrated by the PostgreSQL engine. One connection of its own, one REPEATABLE READ READ ONLY transaction (one
// instant of every table, even while servers write), each table read through a cursor a page at a time, so that
// memory does not grow with the data.
//
// What differs from SQLite, and why:
// - Rows are read in the order of the table's identity column where it has one (SQLite's rowid, which it is), else of
//   its primary key: PostgreSQL has no rowid. No table refers to itself, and an import does not depend on the order
//   of one table's rows; an identity's order (judgments.seq) is kept, as an import gives new values in that order.
// - Every table is in the one database: the delivery tables, webhooks.db's on SQLite, are read in the same
//   transaction; a table this build's PostgreSQL schema lacks would read as empty (`readable` says so; today it has
//   every table the archive holds).
// - The schema level: a database at this build's PostgreSQL schema stands for SQLite's level of the same build (the
//   archive's manifest records SQLite's count of migrations); one at another level is refused with the reason.
import type pg from 'pg';
import { buildSchemaLevel } from './level.ts';
import { connect, describeDatabase, pgTableFacts, quote, schemaState } from './pg-tables.ts';
import { type ArchiveScope, type ArchiveSource, type ArchiveTableRef, scopeFilter, type StoredRow } from './source.ts';

const PAGE = 1_000;

/** The scope's WHERE clause with PostgreSQL's numbered parameters (after `offset` others). */
function pgScopeFilter(table: ArchiveTableRef, scope: ArchiveScope, offset = 0): { where: string; params: string[] } {
  const filter = scopeFilter(table, scope);
  let n = offset;
  return { where: filter.where === '1' ? 'true' : filter.where.replace(/\?/g, () => `$${++n}`), params: filter.params };
}

/** Opens a PostgreSQL database for reading (its rows as of one instant, read-only). */
export async function openPgArchiveSource(url: string): Promise<ArchiveSource> {
  const where = describeDatabase(url);
  const client = await connect(url, 'hearth-export');
  const facts = pgTableFacts();
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await client.query<R>(text, values)).rows;
  let cursors = 0;
  return {
    file: where,
    async schemaLevel() {
      const state = await schemaState(url, { migrate: false });
      if (state === 'empty') throw new Error(`${where} has no Hearth schema: nothing to export`);
      return buildSchemaLevel();
    },
    async begin() {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    },
    readable: (table) => facts.has(table.name),
    workspaceOfApiKey: async (apiKeyId) =>
      (await query<{ workspace_id: string }>('SELECT workspace_id FROM api_keys WHERE id = $1', [apiKeyId]))[0]?.workspace_id,
    hasWorkspace: async (workspaceId) => (await query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId])).length > 0,
    async count(table, scope) {
      if (!facts.has(table.name)) return 0;
      const filter = pgScopeFilter(table, scope);
      return (await query<{ n: number }>(`SELECT count(*) AS n FROM ${quote(table.name)} WHERE ${filter.where}`, filter.params))[0]?.n ?? 0;
    },
    async *pages(table, columns, scope) {
      const known = facts.get(table.name);
      const filter = pgScopeFilter(table, scope);
      if (!known) return;
      const cursor = `archive_${++cursors}`;
      await client.query(
        `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.map(quote).join(', ')} FROM ${quote(table.name)} WHERE ${filter.where} ORDER BY ${known.order.map(quote).join(', ')}`,
        filter.params,
      );
      try {
        for (;;) {
          const batch = await query<StoredRow>(`FETCH ${PAGE} FROM ${cursor}`);
          if (batch.length === 0) return;
          yield batch;
        }
      } finally {
        await client.query(`CLOSE ${cursor}`).catch(() => undefined);
      }
    },
    async documentLog(document) {
      const rows = await query<{ update: Buffer }>(
        'SELECT "update" FROM crdt_updates WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3 AND editor_id = $4 ORDER BY seq',
        [document.api_key_id, document.organization_id, document.document_id, document.editor_id],
      );
      return rows.map((logged) => logged.update);
    },
    async attachment(storageKey) {
      return (await query<{ bytes: Buffer }>('SELECT bytes FROM attachment_blobs WHERE storage_key = $1', [storageKey]))[0]?.bytes;
    },
    async end() {
      await client.query('COMMIT');
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
