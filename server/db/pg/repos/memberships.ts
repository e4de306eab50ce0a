// Users' roles on organizations, folders and documents on PostgreSQL: the same repository as
// ../../repos/memberships.ts (its type is the contract; test/pg/memberships.test.ts runs both on the same calls and
// compares). The synchronous reads of the access facts (`membershipReads`, used by db/repos/access.ts within one
// step) are the SQLite engine's own and have no counterpart here: the access repository's port will read the facts
// it needs.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AccessRole } from '../../../../shared/schemas/common.ts';
import type { MembershipKey, MembershipRow, MembershipsRepo } from '../../repos/memberships.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: memberships, c: m } = pgTableFor('memberships');

/** Ids are deleted in slices of this many, as on SQLite. */
const SLICE = 500;

const exactly = (apiKeyId: string, key: MembershipKey) =>
  and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, key.organizationId), eq(m.level, key.level), eq(m.resourceId, key.resourceId), eq(m.userId, key.userId));

type GrantEntry = { userId: string; accessRole: AccessRole | null; now: number };

/**
 * users/add's write for a run of entries with distinct users, all with a role given or all without (ON CONFLICT DO
 * UPDATE cannot see the role given when the insert made it 'editor', so the two kinds are two statements): the role
 * `given ?? current ?? 'editor'`, no expiry. The entries travel as one JSON parameter.
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

export function membershipsRepoPg(engine: PgEngine): MembershipsRepo {
  return {
    find: (scope, key) =>
      engine.read(async (db) => (await db.select().from(memberships).where(exactly(scope.apiKeyId, key)).limit(1))[0] as MembershipRow | undefined),

    upsert: (scope, row, now) =>
      engine.write(async (db) => {
        await db
          .insert(memberships)
          .values({ ...row, apiKeyId: scope.apiKeyId, createdAt: now, updatedAt: now } as never)
          .onConflictDoUpdate({
            target: [m.apiKeyId, m.organizationId, m.level, m.resourceId, m.userId],
            set: { accessRole: row.accessRole, expiresAt: row.expiresAt, updatedAt: now } as never,
          });
      }),

    // in order: a run ends where the kind of entry (role given or not) changes or a user comes again
    grant: (scope, at, entries) =>
      engine.write(async (db) => {
        let batch: GrantEntry[] = [];
        let users = new Set<string>();
        let given = false;
        for (const entry of entries) {
          const kind = entry.accessRole !== null;
          if (batch.length > 0 && (kind !== given || users.has(entry.userId))) {
            await grantBatch(db, scope.apiKeyId, at, given, batch);
            batch = [];
            users = new Set();
          }
          given = kind;
          batch.push(entry);
          users.add(entry.userId);
        }
        if (batch.length > 0) await grantBatch(db, scope.apiKeyId, at, given, batch);
      }),

    remove: (scope, key) => engine.write(async (db) => ((await db.delete(memberships).where(exactly(scope.apiKeyId, key))).rowCount ?? 0) > 0),

    removeUser: (scope, organizationId, userId) =>
      engine.write(
        async (db) =>
          (await db.delete(memberships).where(and(eq(m.apiKeyId, scope.apiKeyId), eq(m.organizationId, organizationId), eq(m.userId, userId)))).rowCount ?? 0,
      ),

    removeAt: (scope, organizationId, level, resourceIds) =>
      engine.write(async (db) => {
        for (let i = 0; i < resourceIds.length; i += SLICE) {
          await db
            .delete(memberships)
            .where(
              and(
                eq(m.apiKeyId, scope.apiKeyId),
                eq(m.organizationId, organizationId),
                eq(m.level, level),
                inArray(m.resourceId, resourceIds.slice(i, i + SLICE)),
              ),
            );
        }
      }),
  };
}
