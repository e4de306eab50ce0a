// A data dir's database files looked at from outside a server (`hearth doctor`, an admin command deciding whether it
// may open the data dir): read only, closed before answering, no connection handed out.
import Database from 'better-sqlite3';
import { schemaStatus, type SchemaStatus } from './client.ts';

export type { SchemaStatus };

export type Inspection =
  | { state: 'unopenable'; error: string }
  | { state: 'unreadable'; error: string }
  /** `PRAGMA integrity_check` found problems: its first lines. */
  | { state: 'damaged'; integrity: string }
  | { state: 'ok'; schema: SchemaStatus | undefined };

/** Opens a database file read only, runs `PRAGMA integrity_check` and, when asked, reads its schema's state. */
export function inspectDatabaseFile(file: string, options: { schema: boolean }): Inspection {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { state: 'unopenable', error: (error as Error).message };
  }
  try {
    db.pragma('busy_timeout = 5000');
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return { state: 'damaged', integrity: String(integrity) };
    return { state: 'ok', schema: options.schema ? schemaStatus(db) : undefined };
  } catch (error) {
    return { state: 'unreadable', error: (error as Error).message };
  } finally {
    db.close();
  }
}

/** The schema's state of a database file, without checking its pages (the migrations table only). */
export function schemaStatusOfFile(file: string): SchemaStatus {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return schemaStatus(db);
  } finally {
    db.close();
  }
}
