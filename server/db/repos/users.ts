// The API key's user directory: one profile per user id (access is the memberships'). Written once for both engines
// (engine.ts; test/pg/users.test.ts runs it on both and compares every answer), but for users/add's two statements,
// `findMany` and `save`: users/add reads and writes a thousand profiles a call, and each engine has its fastest form
// (`bulk` below): SQLite's plain SQL run in-process, PostgreSQL's one statement per run of writes.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { connectionOf } from '../connection.ts';
import type { Engine, Q } from '../engine.ts';
import { ConcurrentChange, type PgDb } from '../pg/engine.ts';
import type { users } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type UserRow = typeof users.$inferSelect;
/**
 * A profile to write: an insert of a user the unit found absent, or an update of `before`, the row as the unit read
 * it (PostgreSQL writes it only if it is still so, else the unit runs again: `saveBatch` below; SQLite's one writer
 * needs no check).
 */
export type UserWrite = { row: Omit<UserRow, 'apiKeyId'>; insert: boolean; before?: UserRow | undefined };

// SQLite: plain SQL prepared once per connection (the statement cache of db/client.ts keeps it compiled): users/add
// writes a thousand profiles a call, and building each statement with drizzle cost ~280 µs per user; these cost a
// few µs.
const USER_COLUMNS =
  'api_key_id AS apiKeyId, id, internal_id AS internalId, name, email, initial, photo_url AS photoUrl, metadata, created_at AS createdAt, updated_at AS updatedAt';
/** The ids travel as one JSON array: one statement for any number; SQLite looks each id up by key. */
const SELECT_USERS = `SELECT ${USER_COLUMNS} FROM users WHERE api_key_id = ? AND id IN (SELECT value FROM json_each(?))`;
const INSERT_USER =
  'INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const UPDATE_USER =
  'UPDATE users SET internal_id = ?, name = ?, email = ?, initial = ?, photo_url = ?, metadata = ?, created_at = ?, updated_at = ? WHERE api_key_id = ? AND id = ?';

type StoredUser = Omit<UserRow, 'metadata'> & { metadata: string };

/** The profiles of these users (absent ones left out), on a connection: notifications/add reads them in its prelude. */
export function findUsersOn(db: Db, apiKeyId: string, ids: readonly string[]) {
  const found = new Map<string, UserRow>();
  for (const stored of connectionOf(db).prepare<[string, string], StoredUser>(SELECT_USERS).all(apiKeyId, JSON.stringify(ids))) {
    found.set(stored.id, { ...stored, metadata: JSON.parse(stored.metadata) as Record<string, unknown> });
  }
  return found;
}

function saveOnSqlite(db: Db, apiKeyId: string, writes: readonly UserWrite[]) {
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

// PostgreSQL: each round trip costs, so `save` sends a run of writes as one statement whose rows travel as one JSON
// parameter (json_to_recordset), and `findMany` sends its ids as one array parameter (SQLite's json_each of the ids).

/** A lone UTF-16 surrogate, which JSON escapes as `\udXXX` and PostgreSQL refuses to turn into text. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * The text as a text parameter reaches PostgreSQL (node-postgres encodes it as UTF-8, lone surrogates as U+FFFD):
 * the rows travel inside JSON here, where a lone surrogate would make the statement fail instead.
 */
const text = <T extends string | null>(value: T): T => (value === null ? value : (value.replace(LONE_SURROGATE, '\ufffd') as T));

/** The record a write's row travels as, by column name (metadata as its JSON text: `json` keeps it, key order and all). */
const record = ({ row, before }: UserWrite) => ({
  id: text(row.id),
  internal_id: text(row.internalId),
  name: text(row.name),
  email: text(row.email),
  initial: text(row.initial),
  photo_url: text(row.photoUrl),
  // as JSON text inside the JSON: json_to_recordset turns every field of its input into a value and refuses a
  // lone surrogate's escape anywhere in it, which the json type itself stores as written (as SQLite does)
  metadata: JSON.stringify(row.metadata),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  // the profile as the unit read it (an update's check); checked = false: an update without it writes unchecked
  checked: before !== undefined,
  b_name: before ? text(before.name) : null,
  b_email: before ? text(before.email) : null,
  b_initial: before ? text(before.initial) : null,
  b_photo_url: before ? text(before.photoUrl) : null,
  b_updated_at: before?.updatedAt ?? null,
});
const RECORDSET =
  'AS v(id text, internal_id text, name text, email text, initial text, photo_url text, metadata text, created_at bigint, updated_at bigint,' +
  ' checked boolean, b_name text, b_email text, b_initial text, b_photo_url text, b_updated_at bigint)';

/**
 * Runs one batch of writes of one kind whose ids are distinct (so that their order within it cannot matter), on
 * PostgreSQL.
 *
 * A profile is a read-merge-write (services/users.ts: the call's fields over the stored ones). Under READ COMMITTED
 * two units could both read it and the later write would drop the earlier one's fields, and two that both found a
 * user absent would both insert it. So each write applies only to the row the unit read: an insert only while the
 * user is absent (ON CONFLICT DO NOTHING), an update only while the profile's fields and `updated_at` are as read
 * (setMetadata moves `updated_at` too). A write that applies to fewer rows than it names throws ConcurrentChange and
 * the unit runs again, reading the profiles as they are now. Writes are rare (a call that names a user unchanged
 * writes nothing), so the common case takes no lock before the write.
 */
async function saveBatch(db: PgDb, apiKeyId: string, insert: boolean, writes: readonly UserWrite[]) {
  const values = JSON.stringify(writes.map(record));
  const result = insert
    ? await db.execute(
        sql`INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at)
        SELECT ${apiKeyId}, v.id, v.internal_id, v.name, v.email, v.initial, v.photo_url, v.metadata::json, v.created_at, v.updated_at
        FROM json_to_recordset(${values}::json) ${sql.raw(RECORDSET)}
        ON CONFLICT (api_key_id, id) DO NOTHING`,
      )
    : await db.execute(
        sql`UPDATE users AS u SET internal_id = v.internal_id, name = v.name, email = v.email, initial = v.initial, photo_url = v.photo_url,
          metadata = v.metadata::json, created_at = v.created_at, updated_at = v.updated_at
        FROM json_to_recordset(${values}::json) ${sql.raw(RECORDSET)}
        WHERE u.api_key_id = ${apiKeyId} AND u.id = v.id
          AND (NOT v.checked OR (u.name, u.email, u.initial, u.photo_url, u.updated_at) IS NOT DISTINCT FROM (v.b_name, v.b_email, v.b_initial, v.b_photo_url, v.b_updated_at))
        RETURNING u.id`,
      );
  if (insert) {
    if ((result.rowCount ?? 0) < writes.length) throw new ConcurrentChange('a user this unit of work found absent');
    return;
  }
  // an unchecked update of a profile that is gone applies to nothing, as on SQLite; a checked one must apply
  const written = new Set((result.rows as Array<{ id: string }>).map((r) => r.id));
  if (writes.some((w) => w.before !== undefined && !written.has(text(w.row.id)))) throw new ConcurrentChange('a user profile this unit of work read');
}

/** The key's user profiles. */
export function usersRepo(engine: Engine) {
  const { users: u } = engine.t;
  const byId = engine.prepare('users.byId', (db) =>
    db
      .select()
      .from(u)
      .where(and(eq(u.apiKeyId, sql.placeholder('apiKeyId')), eq(u.id, sql.placeholder('id')))),
  );

  // prepared on PostgreSQL only (SQLite's is plain SQL, findUsersOn): every notifications/add reads its users
  const manyById = engine.prepare('users.manyById', (db) =>
    db
      .select()
      .from(u)
      .where(and(eq(u.apiKeyId, sql.placeholder('apiKeyId')), sql`${u.id} = ANY(${sql.placeholder('ids')}::text[])`))
      // SQLite looks the ids up through the primary key: rows by id
      .orderBy(asc(u.id)),
  );

  /** users/add's read and write, whose form differs by engine (see the top). */
  const bulk: {
    findMany(db: Q, apiKeyId: string, ids: readonly string[]): Promise<Map<string, UserRow>>;
    save(db: Q, apiKeyId: string, writes: readonly UserWrite[]): Promise<void>;
  } =
    engine.kind === 'sqlite'
      ? {
          findMany: async (db, apiKeyId, ids) => findUsersOn(db, apiKeyId, ids),
          save: async (db, apiKeyId, writes) => saveOnSqlite(db, apiKeyId, writes),
        }
      : {
          async findMany(db, apiKeyId, ids) {
            const found = new Map<string, UserRow>();
            for (const row of await manyById.all(db, { apiKeyId, ids: [...ids] })) found.set(row.id, row);
            return found;
          },
          // in order: a batch ends where the kind of write changes or an id comes again (a later write of it must win)
          async save(db, apiKeyId, writes) {
            const pg = db as unknown as PgDb;
            let batch: UserWrite[] = [];
            let ids = new Set<string>();
            let insert = false;
            for (const write of writes) {
              if (batch.length > 0 && (write.insert !== insert || ids.has(write.row.id))) {
                await saveBatch(pg, apiKeyId, insert, batch);
                batch = [];
                ids = new Set();
              }
              insert = write.insert;
              batch.push(write);
              ids.add(write.row.id);
            }
            if (batch.length > 0) await saveBatch(pg, apiKeyId, insert, batch);
          },
        };

  return {
    find: (scope: TenantScope, id: string) => engine.read((db) => byId.one(db, { apiKeyId: scope.apiKeyId, id })),

    /** The stored profiles of these ids, by id (one statement for any number of ids). */
    findMany: (scope: TenantScope, ids: readonly string[]) => engine.read((db) => bulk.findMany(db, scope.apiKeyId, ids)),

    /** Writes these profiles in order, in one step. */
    save: (scope: TenantScope, writes: readonly UserWrite[]) => engine.write((db) => bulk.save(db, scope.apiKeyId, writes)),

    /**
     * Takes the user's key lock for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write unit
     * holds the database): a change of the metadata that merges into what it read waits for another's commit.
     */
    lock: (scope: TenantScope, id: string) => engine.write((db) => engine.lockRows(db, ['user', scope.apiKeyId], [id])),

    /** Replaces the profile's metadata. */
    setMetadata: (scope: TenantScope, id: string, metadata: Record<string, unknown>, now: number) =>
      engine.write(async (db) => {
        await db
          .update(u)
          .set({ metadata, updatedAt: now })
          .where(and(eq(u.apiKeyId, scope.apiKeyId), eq(u.id, id)));
      }),
  };
}

export type UsersRepo = ReturnType<typeof usersRepo>;
