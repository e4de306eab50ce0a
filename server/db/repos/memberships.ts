// Users' roles on organizations, folders and documents (the access model's grants; db/repos/access.ts reads them
// for the access resolver). Written once for both engines (engine.ts; test/pg/memberships.test.ts runs it on both
// and compares every answer), but for users/add's grant (below) and `membershipReads`, SQLite's synchronous reads
// of the access facts.
import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AccessRole } from '../../../shared/schemas/common.ts';
import type { Db } from '../client.ts';
import { connectionOf } from '../connection.ts';
import type { Engine, Q } from '../engine.ts';
import { ConcurrentChange, type PgDb } from '../pg/engine.ts';
import { listValues, placeholderList, preparedFor, preparedShapes } from '../prepared.ts';
import { memberships, type MembershipLevel } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type { MembershipLevel };
export type MembershipRow = typeof memberships.$inferSelect;
/** One membership: a user at a level (the organization, a folder or a document) of an organization. */
export interface MembershipKey {
  organizationId: string;
  level: MembershipLevel;
  resourceId: string;
  userId: string;
}

/** Ids are deleted in slices of this many: SQLite's bound-parameter limit stays far. */
const SLICE = 500;

const P = sql.placeholder;

// SQLite's synchronous reads of the access facts: db/repos/access.ts (still written per engine) calls them inside
// its own synchronous step, so they stay here, against the SQLite schema, as before. PostgreSQL's access repository
// reads its facts itself (pg/repos/access.ts).
const m = memberships;
/** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
const inOrganization = [eq(m.apiKeyId, P('apiKeyId')), eq(m.organizationId, P('organizationId'))];
const queries = preparedFor((db) => ({
  /** A user's memberships in an organization, unexpired at `now`. */
  ofUser: db
    .select()
    .from(m)
    .where(and(...inOrganization, eq(m.userId, P('userId')), or(isNull(m.expiresAt), gt(m.expiresAt, P('now')))))
    .prepare(),
}));

/** The users with a membership at `level` on any of `count` resources (placeholders r0, r1, …). */
const membersAt = preparedShapes((db, shape: `${MembershipLevel}:${number}`) => {
  const [level, count] = shape.split(':') as [MembershipLevel, string];
  return db
    .select({ userId: m.userId })
    .from(m)
    .where(and(...inOrganization, eq(m.level, level), inArray(m.resourceId, placeholderList('r', Number(count)))))
    .prepare();
});

/**
 * users/add's membership write on SQLite, plain SQL prepared once per connection (the statement cache of
 * db/client.ts keeps it compiled; users/add grants a thousand users a call): the role `given ?? current ?? 'editor'`
 * decided by SQLite, so the membership is not read.
 */
const GRANT =
  "INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, coalesce(?, 'editor'), NULL, ?, ?) " +
  'ON CONFLICT (api_key_id, organization_id, level, resource_id, user_id) DO UPDATE SET access_role = coalesce(?, access_role), expires_at = NULL, updated_at = ?';

/** Reads of the access facts (db/repos/access.ts), on a given connection. */
export const membershipReads = {
  /** A user's memberships in an organization, unexpired at `now`. */
  ofUser: (db: Db, apiKeyId: string, organizationId: string, userId: string, now: number): MembershipRow[] =>
    queries(db).ofUser.all({ apiKeyId, organizationId, userId, now }),
  /** The users with a membership at `level` on any of these resources (repeated when on several). */
  usersAt(db: Db, apiKeyId: string, organizationId: string, level: MembershipLevel, resourceIds: readonly string[]): string[] {
    const values: Record<string, string> = { apiKeyId, organizationId };
    listValues(values, 'r', resourceIds);
    return membersAt(db, `${level}:${resourceIds.length}`)
      .all(values)
      .map((row) => row.userId);
  },
};

type GrantEntry = { userId: string; accessRole: AccessRole | null; now: number };

/**
 * users/add's write on PostgreSQL, for a run of entries with distinct users, all with a role given or all without (ON
 * CONFLICT DO UPDATE cannot see the role given when the insert made it 'editor', so the two kinds are two
 * statements): the role `given ?? current ?? 'editor'`, no expiry. The entries travel as one JSON parameter: one
 * round trip per run, where SQLite runs a statement per user in-process.
 */
async function grantBatch(db: PgDb, apiKeyId: string, at: Omit<MembershipKey, 'userId'>, given: boolean, entries: readonly GrantEntry[]) {
  const values = JSON.stringify(entries.map((e) => ({ user_id: e.userId, access_role: e.accessRole, now: e.now })));
  const role = given ? sql.raw('access_role = excluded.access_role, ') : sql.raw('');
  await db.execute(
    sql`INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at)
      SELECT ${apiKeyId}, ${at.organizationId}, ${at.level}, ${at.resourceId}, v.user_id, coalesce(v.access_role, 'editor'), NULL, v.now, v.now
      FROM json_to_recordset(${values}::json) AS v(user_id text, access_role text, now bigint)
      ON CONFLICT (api_key_id, organization_id, level, resource_id, user_id) DO UPDATE SET ${role}expires_at = NULL, updated_at = excluded.updated_at`,
  );
}

/** The key's memberships. */
export function membershipsRepo(engine: Engine) {
  const { memberships: mb } = engine.t;
  const exactly = (apiKeyId: string, key: MembershipKey) =>
    and(
      eq(mb.apiKeyId, apiKeyId),
      eq(mb.organizationId, key.organizationId),
      eq(mb.level, key.level),
      eq(mb.resourceId, key.resourceId),
      eq(mb.userId, key.userId),
    );
  const one = engine.prepare('memberships.one', (db) =>
    db
      .select()
      .from(mb)
      .where(
        and(
          eq(mb.apiKeyId, P('apiKeyId')),
          eq(mb.organizationId, P('organizationId')),
          eq(mb.level, P('level')),
          eq(mb.resourceId, P('resourceId')),
          eq(mb.userId, P('userId')),
        ),
      ),
  );

  /**
   * users/add's grant, the one statement whose form differs by engine: SQLite runs its plain SQL once per user
   * in-process (a few µs each); PostgreSQL sends each run of entries as one statement (a round trip per user would
   * cost a thousand), a run ending where the kind of entry (role given or not) changes or a user comes again, so
   * that the entries apply in order.
   */
  const grant =
    engine.kind === 'sqlite'
      ? async (db: Q, apiKeyId: string, at: Omit<MembershipKey, 'userId'>, entries: readonly GrantEntry[]) => {
          const statement = connectionOf(db).prepare(GRANT);
          for (const { userId, accessRole, now } of entries)
            statement.run(apiKeyId, at.organizationId, at.level, at.resourceId, userId, accessRole, now, now, accessRole, now);
        }
      : async (db: Q, apiKeyId: string, at: Omit<MembershipKey, 'userId'>, entries: readonly GrantEntry[]) => {
          const pg = db as unknown as PgDb;
          let batch: GrantEntry[] = [];
          let users = new Set<string>();
          let given = false;
          for (const entry of entries) {
            const kind = entry.accessRole !== null;
            if (batch.length > 0 && (kind !== given || users.has(entry.userId))) {
              await grantBatch(pg, apiKeyId, at, given, batch);
              batch = [];
              users = new Set();
            }
            given = kind;
            batch.push(entry);
            users.add(entry.userId);
          }
          if (batch.length > 0) await grantBatch(pg, apiKeyId, at, given, batch);
        };

  return {
    find: (scope: TenantScope, key: MembershipKey) => engine.read((db) => one.one(db, { apiKeyId: scope.apiKeyId, ...key })),

    /** Writes one membership (insert, or change the role and expiry). */
    upsert: (scope: TenantScope, row: MembershipKey & { accessRole: AccessRole; expiresAt: number | null }, now: number) =>
      engine.write(async (db) => {
        await db
          .insert(mb)
          .values({ ...row, apiKeyId: scope.apiKeyId, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({
            target: [mb.apiKeyId, mb.organizationId, mb.level, mb.resourceId, mb.userId],
            set: { accessRole: row.accessRole, expiresAt: row.expiresAt, updatedAt: now },
          });
      }),

    /**
     * Changes the role of a membership the unit of work read (users/update). One gone since (a delete committed
     * between the read and this update, at READ COMMITTED) throws ConcurrentChange: the unit runs again and finds it
     * absent, as when the delete came first, instead of an upsert making it again (SQLite's one writer never meets it).
     */
    changeRole: (scope: TenantScope, key: MembershipKey, accessRole: AccessRole, now: number) =>
      engine.write(async (db) => {
        const changed = engine.changed(await db.update(mb).set({ accessRole, updatedAt: now }).where(exactly(scope.apiKeyId, key)));
        if (changed === 0) throw new ConcurrentChange('a membership this unit of work found');
      }),

    /**
     * users/add: each user's membership at one level, in order and in one step, with the role given, else the
     * stored one, else editor, and no expiry.
     */
    grant: (scope: TenantScope, at: Omit<MembershipKey, 'userId'>, entries: ReadonlyArray<{ userId: string; accessRole: AccessRole | null; now: number }>) =>
      engine.write((db) => grant(db, scope.apiKeyId, at, entries)),

    /** Deletes one membership; whether it existed. */
    remove: (scope: TenantScope, key: MembershipKey) => engine.write(async (db) => engine.changed(await db.delete(mb).where(exactly(scope.apiKeyId, key))) > 0),

    /** Deletes every membership of the user in the organization (its folders and documents too); how many. */
    removeUser: (scope: TenantScope, organizationId: string, userId: string) =>
      engine.write(async (db) =>
        engine.changed(await db.delete(mb).where(and(eq(mb.apiKeyId, scope.apiKeyId), eq(mb.organizationId, organizationId), eq(mb.userId, userId)))),
      ),

    /** Deletes every membership on these resources of a level (a folder deletion's). */
    removeAt: (scope: TenantScope, organizationId: string, level: MembershipLevel, resourceIds: readonly string[]) =>
      engine.write(async (db) => {
        for (let i = 0; i < resourceIds.length; i += SLICE) {
          await db
            .delete(mb)
            .where(
              and(
                eq(mb.apiKeyId, scope.apiKeyId),
                eq(mb.organizationId, organizationId),
                eq(mb.level, level),
                inArray(mb.resourceId, resourceIds.slice(i, i + SLICE)),
              ),
            );
        }
      }),
  };
}

export type MembershipsRepo = ReturnType<typeof membershipsRepo>;
