// The API key's user directory on PostgreSQL: the same repository as ../../repos/users.ts (its type is the contract;
// test/pg/users.test.ts runs both on the same calls and compares). users/add writes a thousand profiles a call: on
// SQLite each is a prepared statement run in-process; here each round trip costs, so `save` sends a run of writes
// as one statement whose rows travel as one JSON parameter (json_to_recordset), and `findMany` sends its ids as one
// array parameter (SQLite's json_each of the ids).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { UserRow, UsersRepo, UserWrite } from '../../repos/users.ts';
import { ConcurrentChange, type PgDb, type PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: users, c } = pgTableFor('users');

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
 * Runs one batch of writes of one kind whose ids are distinct (so that their order within it cannot matter).
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

export function usersRepoPg(engine: PgEngine): UsersRepo {
  return {
    find: (scope, id) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(users)
              .where(and(eq(c.apiKeyId, scope.apiKeyId), eq(c.id, id)))
              .limit(1)
          )[0] as UserRow | undefined,
      ),

    findMany: (scope, ids) =>
      engine.read(async (db) => {
        const found = new Map<string, UserRow>();
        const rows = (await db
          .select()
          .from(users)
          .where(and(eq(c.apiKeyId, scope.apiKeyId), sql`${c.id} = ANY(${sql.param([...ids])}::text[])`))
          // SQLite looks the ids up through the primary key: rows by id
          .orderBy(asc(c.id))) as UserRow[];
        for (const row of rows) found.set(row.id, row);
        return found;
      }),

    // in order: a batch ends where the kind of write changes or an id comes again (a later write of it must win)
    save: (scope, writes) =>
      engine.write(async (db) => {
        let batch: UserWrite[] = [];
        let ids = new Set<string>();
        let insert = false;
        for (const write of writes) {
          if (batch.length > 0 && (write.insert !== insert || ids.has(write.row.id))) {
            await saveBatch(db, scope.apiKeyId, insert, batch);
            batch = [];
            ids = new Set();
          }
          insert = write.insert;
          batch.push(write);
          ids.add(write.row.id);
        }
        if (batch.length > 0) await saveBatch(db, scope.apiKeyId, insert, batch);
      }),

    setMetadata: (scope, id, metadata, now) =>
      engine.write(async (db) => {
        await db
          .update(users)
          .set({ metadata, updatedAt: now } as never)
          .where(and(eq(c.apiKeyId, scope.apiKeyId), eq(c.id, id)));
      }),
  };
}
