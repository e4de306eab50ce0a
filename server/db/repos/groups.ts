// An organization's user groups and their members (contacts and mentions: groups grant no access). Written once for
// both engines (engine.ts; test/pg/groups.test.ts runs it on both and compares every answer).
import { and, eq } from 'drizzle-orm';
import { byCodePoint, type Engine } from '../engine.ts';
import type { userGroups } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type UserGroupRow = typeof userGroups.$inferSelect;

/** Members are added in statements of this many rows (five parameters each: far below either engine's limit). */
const SLICE = 1000;

/** The key's user groups. */
export function groupsRepo(engine: Engine) {
  const { userGroups: g, userGroupMembers: members } = engine.t;
  const inGroup = (apiKeyId: string, organizationId: string, groupId: string) =>
    and(eq(members.apiKeyId, apiKeyId), eq(members.organizationId, organizationId), eq(members.groupId, groupId));
  return {
    exists: (scope: TenantScope, organizationId: string, groupId: string) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ id: g.id })
              .from(g)
              .where(and(eq(g.apiKeyId, scope.apiKeyId), eq(g.organizationId, organizationId), eq(g.id, groupId)))
              .limit(1)
          ).length > 0,
      ),

    /**
     * Adds the groups not there yet, in one step; for each, in order, whether it was added. One statement per group
     * (ON CONFLICT DO NOTHING): the same id twice in one call is added once, and answered true then false.
     */
    insert: (scope: TenantScope, organizationId: string, groups: ReadonlyArray<{ id: string; name: string; createdAt: number }>) =>
      engine.write(async (db) => {
        const added: boolean[] = [];
        for (const group of groups)
          added.push(
            engine.changed(
              await db
                .insert(g)
                .values({ ...group, apiKeyId: scope.apiKeyId, organizationId })
                .onConflictDoNothing(),
            ) > 0,
          );
        return added;
      }),

    /**
     * Adds these users to the group (those already in it stay as they are), in one step: one statement per SLICE
     * users (DO NOTHING skips those in the group already, and a user named twice).
     */
    addMembers: (scope: TenantScope, organizationId: string, groupId: string, userIds: readonly string[], now: number) =>
      engine.write(async (db) => {
        for (let i = 0; i < userIds.length; i += SLICE)
          await db
            .insert(members)
            .values(userIds.slice(i, i + SLICE).map((userId) => ({ apiKeyId: scope.apiKeyId, organizationId, groupId, userId, createdAt: now })))
            .onConflictDoNothing();
      }),

    /**
     * Empties the group; the users it had. The rows deleted are the ones answered (RETURNING: on PostgreSQL nothing
     * added between a read and the delete goes unreported), by user id in code point order (the primary key's).
     */
    removeAll: (scope: TenantScope, organizationId: string, groupId: string) =>
      engine.write(async (db) => {
        const removed = await db
          .delete(members)
          .where(inGroup(scope.apiKeyId, organizationId, groupId))
          .returning({ userId: members.userId });
        return removed.map((row) => row.userId).sort(byCodePoint);
      }),

    /** Takes these users out of the group, in one step; for each, in order, whether it was in it. */
    removeMembers: (scope: TenantScope, organizationId: string, groupId: string, userIds: readonly string[]) =>
      engine.write(async (db) => {
        const removed: boolean[] = [];
        for (const userId of userIds)
          removed.push(engine.changed(await db.delete(members).where(and(inGroup(scope.apiKeyId, organizationId, groupId), eq(members.userId, userId)))) > 0);
        return removed;
      }),

    /** Takes the user out of every group of the organization. */
    removeUser: (scope: TenantScope, organizationId: string, userId: string) =>
      engine.write(async (db) => {
        await db.delete(members).where(and(eq(members.apiKeyId, scope.apiKeyId), eq(members.organizationId, organizationId), eq(members.userId, userId)));
      }),
  };
}

export type GroupsRepo = ReturnType<typeof groupsRepo>;
