// One API key's data copied out, written in and cleared while the server runs: the admin UI's export, import and
// reset (server/admin/transfer.ts keeps the archive's format, the live Yjs documents, the files and the order of
// things). Whole-data-dir tools are elsewhere (db/archive/, storage.seed). Every statement is the key's: its rows
// are read, written and deleted by `scope.apiKeyId`, and rows written take the scope's key whatever they say.
import type Database from 'better-sqlite3';
import { getTableColumns, getTableName, type Column } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { BulkRow, BulkTable, BulkWriter } from '../bulk.ts';
import { connectionOf } from '../connection.ts';
import * as schema from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

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

const columnsOf = (sqlite: Database.Database, table: string) =>
  (sqlite.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);

/** Removes the key's collaborative documents (the given ones, or all) with their logs; answers which were there. */
function removeRooms(sqlite: Database.Database, apiKeyId: string, only?: readonly StoredRoom[]): StoredRoom[] {
  const rooms =
    only ?? (sqlite.prepare('SELECT organization_id, document_id, editor_id FROM crdt_documents WHERE api_key_id = ?').all(apiKeyId) as StoredRoom[]);
  const remove = sqlite.prepare('DELETE FROM crdt_documents WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ?');
  for (const r of rooms) remove.run(apiKeyId, r.organization_id, r.document_id, r.editor_id);
  return [...rooms];
}

/**
 * A bulk writer inside the caller's unit of work: one prepared insert per table (the columns the first row names),
 * rows written with the scope's key. Its commit and rollback are the unit of work's.
 */
function keyWriter(sqlite: Database.Database, apiKeyId: string): BulkWriter {
  let total = 0;
  return {
    into<T extends BulkTable>(name: T) {
      const table = schema[name] as SQLiteTable;
      const columns = Object.entries(getTableColumns(table)) as Array<[string, Column]>;
      const keyed = columns.some(([key]) => key === 'apiKeyId');
      let statement: Database.Statement | undefined;
      let used: Array<[string, Column]> = [];
      return (row: BulkRow<T>) => {
        const values = keyed ? { ...(row as Record<string, unknown>), apiKeyId } : (row as Record<string, unknown>);
        if (!statement) {
          used = columns.filter(([key]) => values[key] !== undefined);
          statement = sqlite.prepare(
            `INSERT INTO "${getTableName(table)}" (${used.map(([, column]) => `"${column.name}"`).join(', ')}) VALUES (${used.map(() => '?').join(', ')})`,
          );
        }
        statement.run(
          used.map(([key, column]) => {
            const value = values[key];
            return value === null || value === undefined ? null : column.mapToDriverValue(value);
          }),
        );
        total++;
      };
    },
    commit: () => undefined,
    rollback: () => undefined,
    rows: () => total,
  };
}

export function keyTransferRepo(engine: SqliteEngine) {
  return {
    /**
     * Every row of the key's tables as of one instant (one read transaction), or undefined when they are more than
     * `maxRows` in all (counted table by table, before reading it).
     */
    exportRows: (scope: TenantScope, maxRows: number) =>
      engine.read((db) => {
        const sqlite = connectionOf(db);
        const tables: Partial<Record<KeyTable, KeyRow[]>> = {};
        let total = 0;
        const complete = sqlite.transaction(() => {
          for (const table of KEY_TABLES) {
            total += (sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE api_key_id = ?`).get(scope.apiKeyId) as { n: number }).n;
            if (total > maxRows) return false;
            tables[table] = (sqlite.prepare(`SELECT * FROM ${table} WHERE api_key_id = ?`).all(scope.apiKeyId) as KeyRow[]).map(
              ({ api_key_id: _key, ...row }) => row,
            );
          }
          return true;
        })();
        return complete ? tables : undefined;
      }),

    /**
     * Writes rows into the key's tables (a row with the same keys is replaced), parents first, in the caller's unit
     * of work (or one of its own). The collaborative documents in `rows.crdt_documents` are removed first with their
     * logs, so that the written log is their only one. Columns the table does not have, and those `skip` names,
     * are left out. Answers the rows written by table; a row SQLite refuses throws (nothing is written then).
     */
    importRows: (scope: TenantScope, rows: Partial<Record<KeyTable, KeyRow[]>>, skip: (table: KeyTable, column: string) => boolean) =>
      engine.write((db) => {
        const sqlite = connectionOf(db);
        const apiKeyId = scope.apiKeyId;
        const rooms = (rows.crdt_documents ?? []).map((r) => ({
          organization_id: String(r.organization_id),
          document_id: String(r.document_id),
          editor_id: String(r.editor_id),
        }));
        removeRooms(sqlite, apiKeyId, rooms);
        const imported: Partial<Record<KeyTable, number>> = {};
        // one statement per set of columns (an export's rows of a table all have the same), not one per row
        const statements = new Map<string, Database.Statement>();
        for (const table of KEY_TABLES) {
          const list = rows[table];
          if (!list?.length) continue;
          const known = new Set(columnsOf(sqlite, table));
          for (const row of list) {
            const cols = Object.keys(row).filter((c) => known.has(c) && c !== 'api_key_id' && !skip(table, c));
            // column names quoted: crdt_updates has one named `update`, a keyword
            const sql = `INSERT OR REPLACE INTO ${table} (api_key_id, ${cols.map((c) => `"${c}"`).join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`;
            let statement = statements.get(sql);
            if (statement === undefined) statements.set(sql, (statement = sqlite.prepare(sql)));
            statement.run(apiKeyId, ...cols.map((c) => row[c]));
          }
          imported[table] = list.length;
        }
        return { imported, rooms };
      }),

    /** What a reset must deal with outside the database first: the key's webhook endpoints (their pending deliveries are cancelled). */
    endpointIds: (scope: TenantScope) =>
      engine.read((db) =>
        (connectionOf(db).prepare('SELECT id FROM webhook_endpoints WHERE api_key_id = ?').all(scope.apiKeyId) as Array<{ id: string }>).map((e) => e.id),
      ),

    /**
     * Deletes the key's data (organizations and what is in them, users, collaborative documents, agents, workflow
     * definitions, judgments, webhook endpoints and pending events, user data jobs). Answers the rows removed by
     * table, the collaborative documents that were there and the storage keys of the recordings' files.
     */
    wipe: (scope: TenantScope) =>
      engine.write((db) => {
        const sqlite = connectionOf(db);
        const apiKeyId = scope.apiKeyId;
        const rooms = removeRooms(sqlite, apiKeyId);
        const removed: Record<string, number> = { crdt_documents: rooms.length };
        const storageKeys = (
          sqlite.prepare('SELECT storage_key AS k FROM recording_attachments WHERE api_key_id = ?').all(apiKeyId) as Array<{ k: string }>
        ).map((r) => r.k);
        const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE api_key_id = ?`).get(apiKeyId) as { n: number }).n;
        for (const table of RESET_COUNTED) removed[table] = count(table);
        const endpoints = count('webhook_endpoints');
        // organizations cascade to everything in them; users, agents, workflows and endpoints are the key's own
        for (const table of RESET_DELETED) sqlite.prepare(`DELETE FROM ${table} WHERE api_key_id = ?`).run(apiKeyId);
        sqlite.prepare('DELETE FROM webhook_events WHERE api_key_id = ? AND dispatched_at IS NULL').run(apiKeyId);
        removed.webhook_endpoints = endpoints;
        return { removed, rooms, storageKeys };
      }),

    /** Runs `fill` with a bulk writer of the key's rows, in one step of the caller's unit of work (or one of its own). */
    fill: <T>(scope: TenantScope, fill: (writer: BulkWriter) => T) => engine.write((db) => fill(keyWriter(connectionOf(db), scope.apiKeyId))),
  };
}

export type KeyTransferRepo = ReturnType<typeof keyTransferRepo>;
