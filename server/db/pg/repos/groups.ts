// An organization's user groups on PostgreSQL: the same repository as ../../repos/groups.ts (its type is the
// contract; test/pg/groups.test.ts runs both on the same calls and compares). SQLite's INSERT OR IGNORE is ON
// CONFLICT DO NOTHING here, and its `changes` the statement's rowCount.
import { and, eq } from 'drizzle-orm';
import type { GroupsRepo } from '../../repos/groups.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: userGroups, c: g } = pgTableFor('userGroups');
const { table: members, c: m } = pgTableFor('userGroupMembers');

/** Members are added in statements of this many rows (five parameters each: far below PostgreSQL's 65,535). */
const SLICE = 1000;

const inGroup = (apiKeyId: string, organizationId: string, groupId: string) =>
  and(eq(m.apiKeyId, apiKeyId), eq(m.organizationId, organizationId), eq(m.groupId, groupId));

/** Code point order, as SQLite's BINARY compares text (UTF-8 bytes compare in code point order; UTF-16 units do not). */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

export function groupsRepoPg(engine: PgEngine): GroupsRepo {
  return {
    exists: (scope, organizationId, groupId) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ id: g.id })
              .from(userGroups)
              .where(and(eq(g.apiKeyId, scope.apiKeyId), eq(g.organizationId, organizationId), eq(g.id, groupId)))
              .limit(1)
          ).length > 0,
      ),

    // one statement per group: the same id twice in one call is added once, and answered true then false
    insert: (scope, organizationId, groups) =>
      engine.write(async (db) => {
        const added: boolean[] = [];
        for (const group of groups) {
          const result = await db
            .insert(userGroups)
            .values({ ...group, apiKeyId: scope.apiKeyId, organizationId } as never)
            .onConflictDoNothing();
          added.push((result.rowCount ?? 0) > 0);
        }
        return added;
      }),

    // one statement for many users (DO NOTHING skips those in the group already, and a user named twice)
    addMembers: (scope, organizationId, groupId, userIds, now) =>
      engine.write(async (db) => {
        for (let i = 0; i < userIds.length; i += SLICE) {
          await db
            .insert(members)
            .values(userIds.slice(i, i + SLICE).map((userId) => ({ apiKeyId: scope.apiKeyId, organizationId, groupId, userId, createdAt: now })) as never)
            .onConflictDoNothing();
        }
      }),

    // the rows deleted are the ones answered (RETURNING: nothing added between a read and the delete goes unreported),
    // in the order SQLite's read gives them (its primary key's: by user id)
    removeAll: (scope, organizationId, groupId) =>
      engine.write(async (db) => {
        const removed = (await db
          .delete(members)
          .where(inGroup(scope.apiKeyId, organizationId, groupId))
          .returning({ userId: m.userId })) as Array<{ userId: string }>;
        return removed.map((row) => row.userId).sort(byCodePoint);
      }),

    removeMembers: (scope, organizationId, groupId, userIds) =>
      engine.write(async (db) => {
        const removed: boolean[] = [];
        for (const userId of userIds) {
          const result = await db.delete(members).where(and(inGroup(scope.apiKeyId, organizationId, groupId), eq(m.userId, userId)));
          removed.push((result.rowCount ?? 0) > 0);
        }
        return removed;
      }),

    removeUser: (scope, organizationId, userId) =>
      engine.write(async (db) => {
        await db.delete(members).where(and(eq(m.apiKeyId, scope.apiKeyId), eq(m.organizationId, organizationId), eq(m.userId, userId)));
      }),
  };
}
