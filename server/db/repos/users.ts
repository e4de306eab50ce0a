// The API key's user directory: one profile per user id (access is the memberships').
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { connectionOf } from '../connection.ts';
import { preparedFor } from '../prepared.ts';
import { users } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type UserRow = typeof users.$inferSelect;
/** A profile to write: a new one (`insert`) or a change of the stored one. */
/**
 * A profile to write: an insert of a user the unit found absent, or an update of `before`, the row as the unit read
 * it (PostgreSQL writes it only if it is still so, else the unit runs again: pg/repos/users.ts; SQLite's one writer
 * needs no check).
 */
export type UserWrite = { row: Omit<UserRow, 'apiKeyId'>; insert: boolean; before?: UserRow | undefined };

const byId = preparedFor((db) =>
  db
    .select()
    .from(users)
    .where(and(eq(users.apiKeyId, sql.placeholder('apiKeyId')), eq(users.id, sql.placeholder('id'))))
    .prepare(),
);

// Plain SQL prepared once per connection (the statement cache of db/client.ts keeps it compiled): users/add writes
// a thousand profiles a call, and building each statement with drizzle cost ~280 µs per user; these cost a few µs.
const USER_COLUMNS =
  'api_key_id AS apiKeyId, id, internal_id AS internalId, name, email, initial, photo_url AS photoUrl, metadata, created_at AS createdAt, updated_at AS updatedAt';
/** The ids travel as one JSON array: one statement for any number; SQLite looks each id up by key. */
const SELECT_USERS = `SELECT ${USER_COLUMNS} FROM users WHERE api_key_id = ? AND id IN (SELECT value FROM json_each(?))`;
const INSERT_USER =
  'INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const UPDATE_USER =
  'UPDATE users SET internal_id = ?, name = ?, email = ?, initial = ?, photo_url = ?, metadata = ?, created_at = ?, updated_at = ? WHERE api_key_id = ? AND id = ?';

type StoredUser = Omit<UserRow, 'metadata'> & { metadata: string };

const findOn = (db: Db, apiKeyId: string, id: string): UserRow | undefined => byId(db).get({ apiKeyId, id });

function saveOn(db: Db, apiKeyId: string, writes: readonly UserWrite[]) {
  const sqlite = connectionOf(db);
  for (const { row, insert } of writes) {
    // metadata is JSON text, as drizzle's json column reads and writes it
    const metadata = JSON.stringify(row.metadata);
    if (insert)
      sqlite.prepare(INSERT_USER).run(apiKeyId, row.id, row.internalId, row.name, row.email, row.initial, row.photoUrl, metadata, row.createdAt, row.updatedAt);
    else
      sqlite.prepare(UPDATE_USER).run(row.internalId, row.name, row.email, row.initial, row.photoUrl, metadata, row.createdAt, row.updatedAt, apiKeyId, row.id);
  }
}

/** The key's user profiles. */
export function usersRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, id: string) => engine.read((db) => findOn(db, scope.apiKeyId, id)),

    /** The stored profiles of these ids, by id (one statement for any number of ids). */
    findMany: (scope: TenantScope, ids: readonly string[]) =>
      engine.read((db) => {
        const found = new Map<string, UserRow>();
        for (const stored of connectionOf(db).prepare<[string, string], StoredUser>(SELECT_USERS).all(scope.apiKeyId, JSON.stringify(ids))) {
          found.set(stored.id, { ...stored, metadata: JSON.parse(stored.metadata) as Record<string, unknown> });
        }
        return found;
      }),

    /** Writes these profiles in order, in one step. */
    save: (scope: TenantScope, writes: readonly UserWrite[]) => engine.write((db) => saveOn(db, scope.apiKeyId, writes)),

    /** Replaces the profile's metadata. */
    setMetadata: (scope: TenantScope, id: string, metadata: Record<string, unknown>, now: number) =>
      engine.write((db) => {
        db.update(users)
          .set({ metadata, updatedAt: now })
          .where(and(eq(users.apiKeyId, scope.apiKeyId), eq(users.id, id)))
          .run();
      }),
  };
}

export type UsersRepo = ReturnType<typeof usersRepo>;
