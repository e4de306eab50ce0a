// One API key's data copied out, written in and cleared, on PostgreSQL: the same repository as
// ../../repos/key-transfer.ts (its type is the contract; test/pg/key-transfer.test.ts runs both engines on the same
// calls and data and compares every table after each step). Every statement is the key's, as on SQLite.
//
// What differs, and why:
// - Rows come back as SQLite stores them (booleans as 0/1, JSON as its text, blobs as Buffers, integers as numbers),
//   in PostgreSQL's column order; each table's rows are ordered by its primary key (SQLite answers in the order of
//   whichever index its plan picks, with rowid order on ties: no order a second engine can follow, and no order an
//   import depends on).
// - An export is one instant when it runs outside a unit of work (REPEATABLE READ); inside the caller's READ
//   COMMITTED unit of work each statement sees its own instant (SQLite's single writer made it one there too).
// - SQLite's `INSERT OR REPLACE` deletes the rows a written row conflicts with (by primary key or any unique index),
//   with their foreign key cascades, then inserts: here the same delete, then the insert, row by row in the same order.
//   Written identity values (crdt_updates.seq) move the identity sequence past them, as SQLite's next rowid follows
//   its largest.
// - The PostgreSQL-only insertion-order column (`seq` of comments and reactions, ../schema.ts) is none of a row's
//   columns here: an export leaves it out (SQLite's rows have no such column), an import and `fill` never write it
//   (it is GENERATED ALWAYS: the database numbers each row as it is inserted, so the rows written take the order
//   they are written in, as SQLite's rowids do).
// - `fill`'s writer is synchronous, PostgreSQL's statements are not: the writer takes the rows while `fill` runs and
//   they are written, in the order given, in the same step of the same unit of work right after it returns. A row
//   PostgreSQL refuses therefore throws when `fill` has returned, not out of the writer's call (nothing is written
//   either way); `fill`'s own side effects have all happened by then.
import { getTableName } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { BulkRow, BulkTable, BulkWriter } from '../../bulk.ts';
import { KEY_TABLES, RESET_COUNTED, RESET_DELETED, type KeyRow, type KeyTable, type keyTransferRepo, type StoredRoom } from '../../repos/key-transfer.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTables, sourceColumnsOf } from '../schema.ts';

export type KeyTransferRepo = ReturnType<typeof keyTransferRepo>;

/** PostgreSQL's multi-row inserts stay below its 65,535 parameters. */
const MAX_PARAMETERS = 60_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** What an import and an export need to know of a table: its columns, primary key and the unique keys REPLACE deletes by. */
interface TableFacts {
  name: string;
  columns: Set<string>;
  primaryKey: string[];
  /** Primary key first, then each unique index: a written row replaces the rows equal to it on any of them. */
  uniqueKeys: string[][];
  /** The identity column (SQLite's integer primary key, its rowid), if any. */
  identity: string | undefined;
  /** The columns an export reads, in the table's order (the source's: not the insertion order). */
  selectList: string;
}

const tableByName = new Map<string, PgTable>(Object.values(pgTables).map((t) => [getTableName(t), t]));

function factsOf(name: string): TableFacts {
  const table = tableByName.get(name);
  if (!table) throw new Error(`key transfer: no PostgreSQL table ${name}`);
  // the source's columns: the insertion-order column is the database's own, never read or written as a row's
  const columns = Object.values(sourceColumnsOf(table));
  const config = getTableConfig(table);
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? columns.filter((c) => c.primary).map((c) => c.name);
  const uniqueKeys = [primaryKey];
  for (const idx of config.indexes) {
    if (!idx.config.unique) continue;
    // a partial unique index conflicts only with rows its WHERE holds for: it needs a rule of its own
    if (idx.config.where) throw new Error(`key transfer: ${name} has a partial unique index (${idx.config.name}) without a rule`);
    uniqueKeys.push(
      idx.config.columns.map((c) => {
        if (!('name' in c)) throw new Error(`key transfer: ${name} has a unique index on an expression (${idx.config.name}) without a rule`);
        return (c as PgColumn).name;
      }),
    );
  }
  for (const column of columns) if (column.isUnique) uniqueKeys.push([column.name]);
  return {
    name,
    columns: new Set(columns.map((c) => c.name)),
    primaryKey,
    uniqueKeys,
    identity: columns.find((c) => c.generatedIdentity)?.name,
    selectList: columns.map((c) => quote(c.name)).join(', '),
  };
}

const FACTS = Object.fromEntries(KEY_TABLES.map((t) => [t, factsOf(t)])) as Record<KeyTable, TableFacts>;

/** Values as SQLite stores them: booleans as 0/1, JSON as its text (as written), bigint as a number, bytea as a Buffer. */
const OID_BOOL = 16;
const OID_JSON = 114;
const OID_INT8 = 20;
const sqliteValues = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === OID_BOOL) return (v: string) => (v === 't' ? 1 : 0);
    if (oid === OID_JSON) return (v: string) => v;
    if (oid === OID_INT8) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

async function query<R extends pg.QueryResultRow>(db: PgDb, text: string, values: unknown[], types?: typeof sqliteValues) {
  return (await db.$client.query<R>({ text, values, ...(types ? { types } : {}) })).rows;
}

async function exportTables(db: PgDb, apiKeyId: string, maxRows: number) {
  const tables: Partial<Record<KeyTable, KeyRow[]>> = {};
  let total = 0;
  for (const table of KEY_TABLES) {
    const facts = FACTS[table];
    total += (await query<{ n: number }>(db, `SELECT count(*) AS n FROM ${quote(table)} WHERE api_key_id = $1`, [apiKeyId]))[0]?.n ?? 0;
    if (total > maxRows) return undefined;
    const rows = await query<KeyRow>(
      db,
      `SELECT ${facts.selectList} FROM ${quote(table)} WHERE api_key_id = $1 ORDER BY ${facts.primaryKey.map(quote).join(', ')}`,
      [apiKeyId],
      sqliteValues,
    );
    tables[table] = rows.map(({ api_key_id: _key, ...row }) => row);
  }
  return tables;
}

/**
 * One row written as SQLite's `INSERT OR REPLACE` writes it: the rows it conflicts with (same primary key, or same
 * values of a unique index, NULLs never equal) are deleted with their cascades, then it is inserted.
 */
async function replaceRow(db: PgDb, facts: TableFacts, apiKeyId: string, row: KeyRow, cols: string[]) {
  const values: unknown[] = [];
  const given = new Map(cols.map((c) => [c, row[c]]));
  given.set('api_key_id', apiKeyId);
  const conflicts: string[] = [];
  for (const key of facts.uniqueKeys) {
    if (key.length === 0 || key.some((c) => given.get(c) === undefined || given.get(c) === null)) continue;
    conflicts.push(
      `(${key
        .map((c) => {
          values.push(given.get(c));
          return `${quote(c)} = $${values.length}`;
        })
        .join(' AND ')})`,
    );
  }
  if (conflicts.length > 0) {
    await db.$client.query(`DELETE FROM ${quote(facts.name)} WHERE ${conflicts.join(' OR ')}`, values);
  }
  await db.$client.query(
    `INSERT INTO ${quote(facts.name)} (api_key_id${cols.map((c) => `, ${quote(c)}`).join('')}) VALUES ($1${cols.map((_, i) => `, $${i + 2}`).join('')})`,
    [apiKeyId, ...cols.map((c) => row[c])],
  );
}

async function importTables(
  db: PgDb,
  apiKeyId: string,
  rows: Partial<Record<KeyTable, KeyRow[]>>,
  skip: (table: KeyTable, column: string) => boolean,
): Promise<{ imported: Partial<Record<KeyTable, number>>; rooms: StoredRoom[] }> {
  const rooms = (rows.crdt_documents ?? []).map((r) => ({
    organization_id: String(r.organization_id),
    document_id: String(r.document_id),
    editor_id: String(r.editor_id),
  }));
  // the collaborative documents written are removed first with their logs (the written log is then their only one)
  if (rooms.length > 0) {
    await db.$client.query(
      `DELETE FROM crdt_documents WHERE api_key_id = $1 AND (organization_id, document_id, editor_id) IN
        (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]))`,
      [apiKeyId, rooms.map((r) => r.organization_id), rooms.map((r) => r.document_id), rooms.map((r) => r.editor_id)],
    );
  }
  const imported: Partial<Record<KeyTable, number>> = {};
  for (const table of KEY_TABLES) {
    const list = rows[table];
    if (!list?.length) continue;
    const facts = FACTS[table];
    let identityWritten = false;
    for (const row of list) {
      const cols = Object.keys(row).filter((c) => facts.columns.has(c) && c !== 'api_key_id' && !skip(table, c));
      if (facts.identity && cols.includes(facts.identity) && row[facts.identity] !== null && row[facts.identity] !== undefined) identityWritten = true;
      await replaceRow(db, facts, apiKeyId, row, cols);
    }
    if (facts.identity && identityWritten) await advanceIdentity(db, table, facts.identity);
    imported[table] = list.length;
  }
  return { imported, rooms };
}

/** Moves a table's identity sequence past its largest value (values written by hand do not move it; SQLite's next rowid follows its largest). */
async function advanceIdentity(db: PgDb, table: string, column: string) {
  await db.$client.query(
    `SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass AS s, (SELECT max(${quote(column)}) FROM ${quote(table)}) AS m) x
      WHERE m IS NOT NULL AND m > coalesce(pg_sequence_last_value(s), 0)`,
    [table, column],
  );
}

async function wipeKey(db: PgDb, apiKeyId: string) {
  // the key's collaborative documents (and their logs, by cascade), answered in their primary key's order as SQLite's plan reads them
  const rooms = await query<StoredRoom & pg.QueryResultRow>(
    db,
    `WITH gone AS (DELETE FROM crdt_documents WHERE api_key_id = $1 RETURNING organization_id, document_id, editor_id)
      SELECT organization_id, document_id, editor_id FROM gone ORDER BY organization_id, document_id, editor_id`,
    [apiKeyId],
  );
  const removed: Record<string, number> = { crdt_documents: rooms.length };
  const storageKeys = (
    await query<{ k: string }>(
      db,
      'SELECT storage_key AS k FROM recording_attachments WHERE api_key_id = $1 ORDER BY organization_id, recording_id, attachment_id',
      [apiKeyId],
    )
  ).map((r) => r.k);
  const counted = [...RESET_COUNTED, 'webhook_endpoints'] as const;
  const counts =
    (
      await query<Record<string, number>>(
        db,
        `SELECT ${counted.map((t) => `(SELECT count(*) FROM ${quote(t)} WHERE api_key_id = $1) AS ${quote(t)}`).join(', ')}`,
        [apiKeyId],
      )
    )[0] ?? {};
  for (const table of RESET_COUNTED) removed[table] = counts[table] ?? 0;
  // organizations cascade to everything in them; users, agents, workflows and endpoints are the key's own
  for (const table of RESET_DELETED) await db.$client.query(`DELETE FROM ${quote(table)} WHERE api_key_id = $1`, [apiKeyId]);
  await db.$client.query('DELETE FROM webhook_events WHERE api_key_id = $1 AND dispatched_at IS NULL', [apiKeyId]);
  removed.webhook_endpoints = counts.webhook_endpoints ?? 0;
  return { removed, rooms: rooms.map((r) => ({ organization_id: r.organization_id, document_id: r.document_id, editor_id: r.editor_id })), storageKeys };
}

/** An insert the writer was asked for: the table, the columns its first row named (by property and SQL name), and the row's values. */
interface Insert {
  table: string;
  columns: Array<[string, PgColumn]>;
  values: unknown[];
}

/**
 * A writer that takes rows synchronously (the columns its first row names, rows with the scope's key, as SQLite's
 * keyWriter) and keeps them in the order given, for `flush` to write.
 */
function bufferedWriter(apiKeyId: string): { writer: BulkWriter; inserts: Insert[] } {
  const inserts: Insert[] = [];
  const writer: BulkWriter = {
    into<T extends BulkTable>(name: T) {
      const table = pgTables[name];
      if (!table) throw new Error(`key transfer: no PostgreSQL table ${name}`);
      const columns = Object.entries(sourceColumnsOf(table));
      const keyed = columns.some(([key]) => key === 'apiKeyId');
      let used: Array<[string, PgColumn]> | undefined;
      return (row: BulkRow<T>) => {
        const values = keyed ? { ...(row as Record<string, unknown>), apiKeyId } : (row as Record<string, unknown>);
        used ??= columns.filter(([key]) => values[key] !== undefined);
        inserts.push({
          table: getTableName(table),
          columns: used,
          values: used.map(([key, column]) => {
            const value = values[key];
            return value === null || value === undefined ? null : column.mapToDriverValue(value);
          }),
        });
      };
    },
    commit: () => undefined,
    rollback: () => undefined,
    rows: () => inserts.length,
  };
  return { writer, inserts };
}

/** Writes the inserts in their order: consecutive rows of one table and column list as multi-row inserts. */
async function flush(db: PgDb, inserts: readonly Insert[]) {
  for (let i = 0; i < inserts.length; ) {
    const first = inserts[i] as Insert;
    const perRow = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, first.columns.length)));
    let j = i;
    while (j < inserts.length && j - i < perRow && inserts[j]?.table === first.table && inserts[j]?.columns === first.columns) j++;
    const batch = inserts.slice(i, j);
    const values: unknown[] = [];
    const tuples = batch.map((insert) => `(${insert.values.map((v) => `$${values.push(v)}`).join(', ')})`);
    await db.$client.query(`INSERT INTO ${quote(first.table)} (${first.columns.map(([, c]) => quote(c.name)).join(', ')}) VALUES ${tuples.join(', ')}`, values);
    i = j;
  }
}

export function keyTransferRepoPg(engine: PgEngine): KeyTransferRepo {
  return {
    exportRows: (scope, maxRows) =>
      engine.inTransaction()
        ? engine.read((db) => exportTables(db, scope.apiKeyId, maxRows))
        : engine.transaction(() => engine.read((db) => exportTables(db, scope.apiKeyId, maxRows)), { isolation: 'repeatable read' }),

    importRows: (scope, rows, skip) => engine.write((db) => importTables(db, scope.apiKeyId, rows, skip)),

    endpointIds: (scope) =>
      engine.read(async (db) =>
        (await query<{ id: string }>(db, 'SELECT id FROM webhook_endpoints WHERE api_key_id = $1 ORDER BY created_at, id', [scope.apiKeyId])).map((e) => e.id),
      ),

    wipe: (scope) => engine.write((db) => wipeKey(db, scope.apiKeyId)),

    fill: (scope, fill) =>
      engine.write(async (db) => {
        const { writer, inserts } = bufferedWriter(scope.apiKeyId);
        const result = fill(writer);
        await flush(db, inserts);
        return result;
      }),
  };
}
