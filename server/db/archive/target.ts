// An import's writer: the data dir's hearth.db opened as the server opens it (created and migrated when new), with
// webhooks.db attached, so that one transaction covers every row of both files. Rows are written by their identity
// (the key that names a row across data dirs): found, inserted, or replaced; a row SQLite refuses is answered with
// the reason in words, not thrown.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { DATABASE_FILE, DELIVERY_FILE } from '../../data-files.ts';
import { openDatabase } from '../client.ts';
import { openDeliveryFile } from '../delivery-file.ts';
import { DELIVERIES_SCHEMA, qualified, type ArchiveTableRef, type Awaitable } from './source.ts';
import type { Stored } from './values.ts';

/**
 * A table's writer. SQLite's (below) answers synchronously, PostgreSQL's (pg-target.ts) with promises: the tooling
 * awaits every call.
 */
export interface TableTarget {
  /** Whether a row with this identity (values of the identity's columns, in order) is there. */
  exists(identity: readonly Stored[]): Awaitable<boolean>;
  /** Inserts a row (values by SQL column name): undefined, or why the database refused it. */
  insert(values: ReadonlyMap<string, Stored>): Awaitable<string | undefined>;
  /** Overwrites the row of this identity with these values (a CRDT document's update log goes with it): undefined, or why the database refused it. */
  replace(values: ReadonlyMap<string, Stored>, identity: readonly Stored[]): Awaitable<string | undefined>;
}

export interface ArchiveTarget {
  /** Where the rows go, for messages: hearth.db's path, or the PostgreSQL database. */
  readonly file: string;
  /** Attaches webhooks.db (created with its schema when missing, upgraded when older). */
  attachDeliveries(): Awaitable<void>;
  /** Starts the one write transaction of the import. */
  begin(): Awaitable<void>;
  /** The data dir's default workspace, if it has one. */
  defaultWorkspaceId(): Awaitable<string | undefined>;
  /** A table's writer; `identityColumns` (SQL names) identify its rows. */
  table(table: ArchiveTableRef, identityColumns: readonly string[]): TableTarget;
  /**
   * Stores a recording attachment's bytes in the import's transaction, where the database keeps them (PostgreSQL's
   * attachment_blobs): `replace` overwrites bytes already stored under the key, else they are kept. Absent where
   * they are files of the data dir (SQLite), which the import copies itself.
   */
  putAttachment?(storageKey: string, bytes: Buffer, replace: boolean): Promise<void>;
  commit(): Awaitable<void>;
  /** Rolls the import back, unless the database did already (SQLite on a full disk). */
  rollback(): Awaitable<void>;
  /** Checkpoints the WAL into the file (SQLite) and closes. */
  close(): Awaitable<void>;
}

/** A SQLite error on one row, said in words a user can act on. */
function describeSqliteError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code ?? '';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
    return 'the row refers to a row that is neither in the archive nor in the data dir (FOREIGN KEY constraint failed)';
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return `the row collides with another row of the data dir (${message})`;
  return message;
}

/** Opens (creating and migrating when new) the data dir's database for an import. */
export function openArchiveTarget(dataDir: string): ArchiveTarget {
  const file = join(dataDir, DATABASE_FILE);
  const database = openDatabase(file);
  const { sqlite } = database;
  const statements = new Map<string, Database.Statement>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = sqlite.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };
  const attempt = (write: () => void): string | undefined => {
    try {
      write();
      return undefined;
    } catch (error) {
      return describeSqliteError(error);
    }
  };
  return {
    file,
    attachDeliveries() {
      openDeliveryFile(dataDir, { readOnly: false }).close();
      sqlite.prepare(`ATTACH DATABASE ? AS ${DELIVERIES_SCHEMA}`).run(join(dataDir, DELIVERY_FILE));
    },
    begin: () => void sqlite.exec('BEGIN IMMEDIATE'),
    defaultWorkspaceId: () => (sqlite.prepare('SELECT id FROM workspaces WHERE is_default = 1').get() as { id: string } | undefined)?.id,
    table(table, identityColumns) {
      const target = qualified(table);
      const identitySql = identityColumns.map((c) => `"${c}" = ?`).join(' AND ');
      return {
        exists: (identity) => prepare(`SELECT 1 FROM ${target} WHERE ${identitySql}`).get(...identity) !== undefined,
        insert(values) {
          const columns = [...values.keys()];
          return attempt(() =>
            prepare(`INSERT INTO ${target} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(
              ...columns.map((c) => values.get(c)!),
            ),
          );
        },
        replace(values, identity) {
          const columns = [...values.keys()];
          return attempt(() => {
            prepare(`UPDATE ${target} SET ${columns.map((c) => `"${c}" = ?`).join(', ')} WHERE ${identitySql}`).run(
              ...columns.map((c) => values.get(c)!),
              ...identity,
            );
            if (table.name === 'crdt_documents')
              prepare('DELETE FROM crdt_updates WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ?').run(...identity);
          });
        },
      };
    },
    commit: () => void sqlite.exec('COMMIT'),
    rollback() {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    },
    close: () => database.close(),
  };
}
