// One API key's data copied out, written in and cleared while the server runs: the admin UI's export, import and
// reset (server/admin/transfer.ts keeps the archive's format, the live Yjs documents, the files and the order of
// things). Whole-data-dir tools are elsewhere (db/archive/, storage.seed). Every statement is the key's: its rows
// are read, written and deleted by `scope.apiKeyId`, and rows written take the scope's key whatever they say.
//
// Written once for both engines (engine.ts; test/pg/key-transfer.test.ts runs it on both with the same calls and
// data and compares every table after each step). Rows go by SQL column name, as SQLite stores them, so most
// statements are plain SQL of the same text on both (`?` placeholders, numbered for PostgreSQL), run by `raw`. What
// differs, each in one place below:
// - Values: SQLite's driver answers them as stored; PostgreSQL's are parsed back to that form (booleans as 0/1, JSON
//   as its text as written, bigint as a number, bytea as a Buffer): `raw`.
// - SQLite's `INSERT OR REPLACE` deletes the rows a written row conflicts with (by primary key or any unique index),
//   with their foreign key cascades, then inserts; PostgreSQL has no such statement: the same delete, then the
//   insert, row by row in the same order (`replacer`). Written identity values (crdt_updates.seq) move PostgreSQL's
//   identity sequence past them, as SQLite's next rowid follows its largest (`advanceIdentity`).
// - `fill`'s writer is synchronous. SQLite's statements are too, and each row is written when the writer takes it (a
//   row SQLite refuses throws out of the writer's call). PostgreSQL's are not: the writer keeps the rows while `fill`
//   runs and they are written, in the order given, in the same unit of work right after it returns (a row PostgreSQL
//   refuses throws then; nothing is written either way, and `fill`'s own side effects have all happened by then).
// - The PostgreSQL-only insertion-order column (`seq` of comments and reactions, pg/schema.ts) is none of a row's
//   columns: an export leaves it out, an import and `fill` never write it (it is GENERATED ALWAYS: the database
//   numbers each row as it is inserted, so the rows written take the order they are written in, as SQLite's rowids).
// Each table's rows are exported in one order on both, its primary key's (an update log's by room: EXPORT_ORDER);
// SQLite answered them in its plan's order, which no import depends on. Their columns are in the schema's order on
// both (SQLite's `SELECT *` answered them in the file's, which differs where a migration added a column).
import type Database from 'better-sqlite3';
import { and, asc, type Column, eq, getTableName, isNull, or } from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { sqliteForms } from '../archive/pg-tables.ts';
import type { BulkRow, BulkTable, BulkWriter } from '../bulk.ts';
import { connectionOf } from '../connection.ts';
import { byCodePoint, type Engine, type Q } from '../engine.ts';
import type { PgDb } from '../pg/engine.ts';
import * as schema from '../schema.ts';
import type { TenantScope } from '../scope.ts';

/** The tables of a key's export, parents first (the order an import writes them in). */
export const KEY_TABLES = [
  'organizations',
  'folders',
  'documents',
  'users',
  'memberships',
  'user_groups',
  'user_group_members',
  'notifications',
  'notification_recipients',
  'notification_configs',
  'activities',
  'comment_annotations',
  'comments',
  'comment_reads',
  'reactions',
  'crdt_documents',
  'crdt_updates',
  'agents',
  'workflow_definitions',
  // its signing secrets are left out of the admin export and made anew on import (admin/transfer.ts)
  'webhook_endpoints',
] as const;
export type KeyTable = (typeof KEY_TABLES)[number];

/** A row by SQL column name, as SQLite stores it (blobs as Buffers), without its api_key_id. */
export type KeyRow = Record<string, unknown>;

/** A collaborative document's identity, by SQL column name. */
export interface StoredRoom {
  organization_id: string;
  document_id: string;
  editor_id: string;
}

/** The tables a reset counts (what the answer reports removed), and those it deletes from (the rest cascades from organizations). */
export const RESET_COUNTED = ['organizations', 'documents', 'users', 'notifications', 'activities', 'comment_annotations', 'recordings'] as const;
export const RESET_DELETED = [
  'organizations',
  'users',
  'agent_executions',
  'agents',
  'workflow_definitions',
  'judgments',
  'webhook_endpoints',
  'user_data_jobs',
] as const;

/** Rooms per statement of an import's room removal: four parameters each, below either engine's limit. */
const ROOMS_PER_STATEMENT = 200;

/** PostgreSQL's multi-row inserts (`fill`) stay below its 65,535 parameters. */
const MAX_PARAMETERS = 60_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** What an import and an export need to know of a table: its columns, primary key and the unique keys a replace deletes by. */
interface TableFacts {
  name: string;
  columns: Set<string>;
  primaryKey: string[];
  /** Primary key first, then each unique index: a written row replaces the rows equal to it on any of them. */
  uniqueKeys: string[][];
  /** PostgreSQL's identity column (SQLite's integer primary key, its rowid), if any; none on SQLite. */
  identity: string | undefined;
  /** The columns an export reads, in the schema's order. */
  selectList: string;
  /** The order of an export's rows (EXPORT_ORDER, else the primary key's). */
  orderBy: string;
}

/**
 * An export's order where it is not the primary key's: an update log's by room, then sequence number, which its
 * index (crdt_updates_doc, after api_key_id) gives on both engines, where the sequence number alone needs a sort.
 */
const EXPORT_ORDER: Partial<Record<string, string[]>> = { crdt_updates: ['organization_id', 'document_id', 'editor_id', 'seq'] };

/** A table's facts: keys from the one schema (pg/schema.ts converts them as they are), columns as the engine has them. */
function factsOf(name: string, table: SQLiteTable, columns: Column[]): TableFacts {
  const config = getTableConfig(table);
  const primaryKey = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const uniqueKeys = [primaryKey];
  for (const idx of config.indexes) {
    if (!idx.config.unique) continue;
    // a partial unique index conflicts only with rows its WHERE holds for: it needs a rule of its own
    if (idx.config.where) throw new Error(`key transfer: ${name} has a partial unique index (${idx.config.name}) without a rule`);
    uniqueKeys.push(
      idx.config.columns.map((c) => {
        if (!('name' in c)) throw new Error(`key transfer: ${name} has a unique index on an expression (${idx.config.name}) without a rule`);
        return (c as SQLiteColumn).name;
      }),
    );
  }
  for (const column of config.columns) if (column.isUnique) uniqueKeys.push([column.name]);
  return {
    name,
    columns: new Set(columns.map((c) => c.name)),
    primaryKey,
    uniqueKeys,
    identity: columns.find((c) => (c as { generatedIdentity?: unknown }).generatedIdentity !== undefined)?.name,
    selectList: columns.map((c) => quote(c.name)).join(', '),
    orderBy: (EXPORT_ORDER[name] ?? primaryKey).map(quote).join(', '),
  };
}

/** A statement's text with PostgreSQL's numbered placeholders for `?` (the statements here have no other `?`). */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** An insert a writer was asked for: the table, the columns its first row named (by property and SQL name), and the row's values. */
interface Insert {
  table: string;
  columns: Array<[string, Column]>;
  values: unknown[];
}

export function keyTransferRepo(engine: Engine) {
  const { crdtDocuments: cd, recordingAttachments: ra, webhookEndpoints: we, webhookEvents: ev } = engine.t;
  const sources = new Map<string, unknown>(Object.entries(schema));
  // engine.t has the source's export names (on PostgreSQL, the converted tables): each with its source table, for its keys
  const byName = new Map<string, { table: SQLiteTable; source: SQLiteTable }>(
    Object.entries(engine.t).map(([key, table]) => [getTableName(table), { table, source: sources.get(key) as SQLiteTable }]),
  );
  const FACTS = Object.fromEntries(
    KEY_TABLES.map((name) => {
      const found = byName.get(name);
      if (!found) throw new Error(`key transfer: no table ${name}`);
      return [name, factsOf(name, found.source, Object.values(engine.columns(found.table)))];
    }),
  ) as Record<KeyTable, TableFacts>;

  /** Plain SQL (`?` placeholders): its rows, values as SQLite stores them (see the top). */
  const raw = async <R extends Record<string, unknown>>(db: Q, text: string, values: unknown[]): Promise<R[]> =>
    engine.kind === 'sqlite'
      ? (connectionOf(db)
          .prepare(text)
          .all(...values) as R[])
      : ((await (db as unknown as PgDb).$client.query({ text: numbered(text), values, types: sqliteForms })).rows as R[]);
  /** Plain SQL that writes (`?` placeholders). */
  const run = async (db: Q, text: string, values: unknown[]): Promise<void> => {
    if (engine.kind === 'sqlite')
      connectionOf(db)
        .prepare(text)
        .run(...values);
    else await (db as unknown as PgDb).$client.query(numbered(text), values);
  };

  /** Every row of the key's tables, or undefined when they are more than `maxRows` in all (counted table by table, before reading it). */
  async function exportTables(db: Q, apiKeyId: string, maxRows: number) {
    const tables: Partial<Record<KeyTable, KeyRow[]>> = {};
    let total = 0;
    for (const table of KEY_TABLES) {
      const facts = FACTS[table];
      total += (await raw<{ n: number }>(db, `SELECT count(*) AS n FROM ${quote(table)} WHERE api_key_id = ?`, [apiKeyId]))[0]?.n ?? 0;
      if (total > maxRows) return undefined;
      const rows = await raw<KeyRow>(db, `SELECT ${facts.selectList} FROM ${quote(table)} WHERE api_key_id = ? ORDER BY ${facts.orderBy}`, [apiKeyId]);
      tables[table] = rows.map(({ api_key_id: _key, ...row }) => row);
    }
    return tables;
  }

  /**
   * How an import writes one row: as SQLite's `INSERT OR REPLACE` writes it, the rows it conflicts with (same
   * primary key, or same values of a unique index, NULLs never equal) deleted with their cascades, then it inserted.
   * SQLite has the statement (one per set of columns, prepared once an import: an export's rows of a table all have
   * the same); PostgreSQL has none, so it is the delete, then the insert.
   */
  function replacer(db: Q, apiKeyId: string): (facts: TableFacts, row: KeyRow, cols: string[]) => Promise<void> {
    if (engine.kind === 'sqlite') {
      const sqlite = connectionOf(db);
      const statements = new Map<string, Database.Statement>();
      return async (facts, row, cols) => {
        // column names quoted: crdt_updates has one named `update`, a keyword
        const text = `INSERT OR REPLACE INTO ${quote(facts.name)} (api_key_id${cols.map((c) => `, ${quote(c)}`).join('')}) VALUES (?${cols.map(() => ', ?').join('')})`;
        let statement = statements.get(text);
        if (statement === undefined) statements.set(text, (statement = sqlite.prepare(text)));
        statement.run(apiKeyId, ...cols.map((c) => row[c]));
      };
    }
    const client = (db as unknown as PgDb).$client;
    return async (facts, row, cols) => {
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
      if (conflicts.length > 0) await client.query(`DELETE FROM ${quote(facts.name)} WHERE ${conflicts.join(' OR ')}`, values);
      await client.query(
        `INSERT INTO ${quote(facts.name)} (api_key_id${cols.map((c) => `, ${quote(c)}`).join('')}) VALUES ($1${cols.map((_, i) => `, $${i + 2}`).join('')})`,
        [apiKeyId, ...cols.map((c) => row[c])],
      );
    };
  }

  /** PostgreSQL: moves a table's identity sequence past its largest value (values written by hand do not move it; SQLite's next rowid follows its largest). */
  async function advanceIdentity(db: Q, table: string, column: string) {
    await (db as unknown as PgDb).$client.query(
      `SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass AS s, (SELECT max(${quote(column)}) FROM ${quote(table)}) AS m) x
        WHERE m IS NOT NULL AND m > coalesce(pg_sequence_last_value(s), 0)`,
      [table, column],
    );
  }

  /**
   * A writer of the key's rows (the columns its first row names, rows with the scope's key), each row handed to
   * `write` as the engine's driver takes it (the engine's own column encodings: JSON, booleans).
   */
  function keyWriter(apiKeyId: string, write: (insert: Insert) => void): BulkWriter {
    let total = 0;
    return {
      into<T extends BulkTable>(name: T) {
        const table = engine.t[name as keyof typeof engine.t] as SQLiteTable | undefined;
        if (!table) throw new Error(`key transfer: no table ${name}`);
        // the source's columns: PostgreSQL's insertion-order column is the database's own, never written as a row's
        const columns = Object.entries(engine.columns(table)) as Array<[string, Column]>;
        const keyed = columns.some(([key]) => key === 'apiKeyId');
        let used: Array<[string, Column]> | undefined;
        return (row: BulkRow<T>) => {
          const values = keyed ? { ...(row as Record<string, unknown>), apiKeyId } : (row as Record<string, unknown>);
          used ??= columns.filter(([key]) => values[key] !== undefined);
          write({
            table: getTableName(table),
            columns: used,
            values: used.map(([key, column]) => {
              const value = values[key];
              return value === null || value === undefined ? null : column.mapToDriverValue(value);
            }),
          });
          total++;
        };
      },
      commit: () => undefined,
      rollback: () => undefined,
      rows: () => total,
    };
  }

  /** The insert of a writer's rows: one prepared statement per table and column list (the same object for a table's rows). */
  const insertText = (insert: Insert, rows: number) =>
    `INSERT INTO ${quote(insert.table)} (${insert.columns.map(([, c]) => quote(c.name)).join(', ')}) VALUES ${Array.from(
      { length: rows },
      () => `(${insert.columns.map(() => '?').join(', ')})`,
    ).join(', ')}`;

  /** PostgreSQL: writes the inserts in their order, consecutive rows of one table and column list as multi-row inserts. */
  async function flush(db: Q, inserts: readonly Insert[]) {
    for (let i = 0; i < inserts.length; ) {
      const first = inserts[i] as Insert;
      const perRow = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, first.columns.length)));
      let j = i;
      while (j < inserts.length && j - i < perRow && inserts[j]?.table === first.table && inserts[j]?.columns === first.columns) j++;
      await run(
        db,
        insertText(first, j - i),
        inserts.slice(i, j).flatMap((insert) => insert.values),
      );
      i = j;
    }
  }

  return {
    /**
     * Every row of the key's tables as of one instant (one read transaction: engine.snapshot), or undefined when
     * they are more than `maxRows` in all (counted table by table, before reading it).
     */
    exportRows: (scope: TenantScope, maxRows: number) => engine.snapshot((db) => exportTables(db, scope.apiKeyId, maxRows)),

    /**
     * Writes rows into the key's tables (a row with the same keys is replaced), parents first, in the caller's unit
     * of work (or one of its own). The collaborative documents in `rows.crdt_documents` are removed first with their
     * logs, so that the written log is their only one. Columns the table does not have, and those `skip` names,
     * are left out. Answers the rows written by table; a row the database refuses throws (nothing is written then).
     */
    importRows: (scope: TenantScope, rows: Partial<Record<KeyTable, KeyRow[]>>, skip: (table: KeyTable, column: string) => boolean) =>
      engine.write(async (db): Promise<{ imported: Partial<Record<KeyTable, number>>; rooms: StoredRoom[] }> => {
        const apiKeyId = scope.apiKeyId;
        const rooms = (rows.crdt_documents ?? []).map((r) => ({
          organization_id: String(r.organization_id),
          document_id: String(r.document_id),
          editor_id: String(r.editor_id),
        }));
        // the collaborative documents written are removed first with their logs (by cascade): the written log is then their only one
        for (let i = 0; i < rooms.length; i += ROOMS_PER_STATEMENT) {
          const some = rooms.slice(i, i + ROOMS_PER_STATEMENT);
          // the key in every term: each is then a lookup of the primary key on both engines
          await db
            .delete(cd)
            .where(
              or(
                ...some.map((r) =>
                  and(eq(cd.apiKeyId, apiKeyId), eq(cd.organizationId, r.organization_id), eq(cd.documentId, r.document_id), eq(cd.editorId, r.editor_id)),
                ),
              ),
            );
        }
        const replace = replacer(db, apiKeyId);
        const imported: Partial<Record<KeyTable, number>> = {};
        for (const table of KEY_TABLES) {
          const list = rows[table];
          if (!list?.length) continue;
          const facts = FACTS[table];
          let identityWritten = false;
          for (const row of list) {
            const cols = Object.keys(row).filter((c) => facts.columns.has(c) && c !== 'api_key_id' && !skip(table, c));
            if (facts.identity && cols.includes(facts.identity) && row[facts.identity] !== null && row[facts.identity] !== undefined) identityWritten = true;
            await replace(facts, row, cols);
          }
          if (engine.kind === 'postgres' && facts.identity && identityWritten) await advanceIdentity(db, table, facts.identity);
          imported[table] = list.length;
        }
        return { imported, rooms };
      }),

    /** What a reset must deal with outside the database first: the key's webhook endpoints (their pending deliveries are cancelled), oldest first, then by id. */
    endpointIds: (scope: TenantScope) =>
      engine.read(async (db) =>
        (await db.select({ id: we.id }).from(we).where(eq(we.apiKeyId, scope.apiKeyId)).orderBy(asc(we.createdAt), asc(we.id))).map((e) => e.id),
      ),

    /**
     * Deletes the key's data (organizations and what is in them, users, collaborative documents, agents, workflow
     * definitions, judgments, webhook endpoints and pending events, user data jobs). Answers the rows removed by
     * table, the collaborative documents that were there (in their primary key's order) and the storage keys of the
     * recordings' files.
     */
    wipe: (scope: TenantScope) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        // the key's collaborative documents, and their logs by cascade: those the delete found, whatever committed before it
        const rooms: StoredRoom[] = (
          await db
            .delete(cd)
            .where(eq(cd.apiKeyId, apiKeyId))
            .returning({ organization_id: cd.organizationId, document_id: cd.documentId, editor_id: cd.editorId })
        ).sort(
          (a, b) => byCodePoint(a.organization_id, b.organization_id) || byCodePoint(a.document_id, b.document_id) || byCodePoint(a.editor_id, b.editor_id),
        );
        const removed: Record<string, number> = { crdt_documents: rooms.length };
        const storageKeys = (
          await db
            .select({ k: ra.storageKey })
            .from(ra)
            .where(eq(ra.apiKeyId, apiKeyId))
            .orderBy(asc(ra.organizationId), asc(ra.recordingId), asc(ra.attachmentId))
        ).map((r) => r.k);
        const counted = [...RESET_COUNTED, 'webhook_endpoints'] as const;
        const counts =
          (
            await raw<Record<string, number>>(
              db,
              `SELECT ${counted.map((t) => `(SELECT count(*) FROM ${quote(t)} WHERE api_key_id = ?) AS ${quote(t)}`).join(', ')}`,
              counted.map(() => apiKeyId),
            )
          )[0] ?? {};
        for (const table of RESET_COUNTED) removed[table] = counts[table] ?? 0;
        // organizations cascade to everything in them; users, agents, workflows and endpoints are the key's own
        for (const table of RESET_DELETED) await run(db, `DELETE FROM ${quote(table)} WHERE api_key_id = ?`, [apiKeyId]);
        await db.delete(ev).where(and(eq(ev.apiKeyId, apiKeyId), isNull(ev.dispatchedAt)));
        removed.webhook_endpoints = counts.webhook_endpoints ?? 0;
        return { removed, rooms, storageKeys };
      }),

    /** Runs `fill` with a bulk writer of the key's rows, in one step of the caller's unit of work (or one of its own). */
    fill: <T>(scope: TenantScope, fill: (writer: BulkWriter) => T) =>
      engine.write(async (db): Promise<T> => {
        if (engine.kind === 'sqlite') {
          // each row written as the writer takes it: one prepared insert per table (the columns its first row names)
          const sqlite = connectionOf(db);
          const statements = new Map<Insert['columns'], Database.Statement>();
          return fill(
            keyWriter(scope.apiKeyId, (insert) => {
              let statement = statements.get(insert.columns);
              if (statement === undefined) statements.set(insert.columns, (statement = sqlite.prepare(insertText(insert, 1))));
              statement.run(insert.values);
            }),
          );
        }
        // PostgreSQL: the rows kept while `fill` runs, then written (see the top)
        const inserts: Insert[] = [];
        const result = fill(keyWriter(scope.apiKeyId, (insert) => inserts.push(insert)));
        await flush(db, inserts);
        return result;
      }),
  };
}

export type KeyTransferRepo = ReturnType<typeof keyTransferRepo>;
