// Users' roles on organizations, folders and documents (the access model's grants; db/repos/access.ts reads them
// for the access resolver).
import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AccessRole } from '../../../shared/schemas/common.ts';
import type { Db } from '../client.ts';
import { connectionOf } from '../connection.ts';
import { listValues, placeholderList, preparedFor, preparedShapes } from '../prepared.ts';
import { memberships, type MembershipLevel } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

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

const m = memberships;
const P = sql.placeholder;
/** The API key's organization, as placeholders `apiKeyId` and `organizationId`. */
const inOrganization = [eq(m.apiKeyId, P('apiKeyId')), eq(m.organizationId, P('organizationId'))];
const queries = preparedFor((db) => ({
  /** A user's memberships in an organization, unexpired at `now`. */
  ofUser: db
    .select()
    .from(m)
    .where(and(...inOrganization, eq(m.userId, P('userId')), or(isNull(m.expiresAt), gt(m.expiresAt, P('now')))))
    .prepare(),
  one: db
    .select()
    .from(m)
    .where(and(...inOrganization, eq(m.level, P('level')), eq(m.resourceId, P('resourceId')), eq(m.userId, P('userId'))))
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

/** users/add's membership write: the role `given ?? current ?? 'editor'` decided by SQLite, so the membership is not read. */
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

const findOn = (db: Db, apiKeyId: string, key: MembershipKey): MembershipRow | undefined => queries(db).one.get({ apiKeyId, ...key });

function upsertOn(db: Db, apiKeyId: string, row: MembershipKey & { accessRole: AccessRole; expiresAt: number | null }, now: number) {
  db.insert(memberships)
    .values({ ...row, apiKeyId, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [memberships.apiKeyId, memberships.organizationId, memberships.level, memberships.resourceId, memberships.userId],
      set: { accessRole: row.accessRole, expiresAt: row.expiresAt, updatedAt: now },
    })
    .run();
}

const exactly = (apiKeyId: string, key: MembershipKey) =>
  and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, key.organizationId), eq(m.level, key.level), eq(m.resourceId, key.resourceId), eq(m.userId, key.userId));

/** The key's memberships. */
export function membershipsRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, key: MembershipKey) => engine.read((db) => findOn(db, scope.apiKeyId, key)),

    /** Writes one membership (insert, or change the role and expiry). */
    upsert: (scope: TenantScope, row: MembershipKey & { accessRole: AccessRole; expiresAt: number | null }, now: number) =>
      engine.write((db) => upsertOn(db, scope.apiKeyId, row, now)),

    /**
     * users/add: each user's membership at one level, in order and in one step, with the role given, else the
     * stored one, else editor, and no expiry.
     */
    grant: (scope: TenantScope, at: Omit<MembershipKey, 'userId'>, entries: ReadonlyArray<{ userId: string; accessRole: AccessRole | null; now: number }>) =>
      engine.write((db) => {
        const grant = connectionOf(db).prepare(GRANT);
        for (const { userId, accessRole, now } of entries)
          grant.run(scope.apiKeyId, at.organizationId, at.level, at.resourceId, userId, accessRole, now, now, accessRole, now);
      }),

    /** Deletes one membership; whether it existed. */
    remove: (scope: TenantScope, key: MembershipKey) => engine.write((db) => db.delete(m).where(exactly(scope.apiKeyId, key)).run().changes > 0),

    /** Deletes every membership of the user in the organization (its folders and documents too); how many. */
    removeUser: (scope: TenantScope, organizationId: string, userId: string) =>
      engine.write(
        (db) =>
          db
            .delete(m)
            .where(and(eq(m.apiKeyId, scope.apiKeyId), eq(m.organizationId, organizationId), eq(m.userId, userId)))
            .run().changes,
      ),

    /** Deletes every membership on these resources of a level (a folder deletion's). */
    removeAt: (scope: TenantScope, organizationId: string, level: MembershipLevel, resourceIds: readonly string[]) =>
      engine.write((db) => {
        for (let i = 0; i < resourceIds.length; i += SLICE) {
          db.delete(m)
            .where(
              and(
                eq(m.apiKeyId, scope.apiKeyId),
                eq(m.organizationId, organizationId),
                eq(m.level, level),
                inArray(m.resourceId, resourceIds.slice(i, i + SLICE)),
              ),
            )
            .run();
        }
      }),
  };
}

export type MembershipsRepo = ReturnType<typeof membershipsRepo>;
