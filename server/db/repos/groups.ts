// An organization's user groups and their members (contacts and mentions: groups grant no access).
import { and, eq } from 'drizzle-orm';
import { userGroupMembers, userGroups } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type UserGroupRow = typeof userGroups.$inferSelect;

const members = userGroupMembers;
const inGroup = (apiKeyId: string, organizationId: string, groupId: string) =>
  and(eq(members.apiKeyId, apiKeyId), eq(members.organizationId, organizationId), eq(members.groupId, groupId));

/** The key's user groups. */
export function groupsRepo(engine: SqliteEngine) {
  return {
    exists: (scope: TenantScope, organizationId: string, groupId: string) =>
      engine.read(
        (db) =>
          db
            .select({ id: userGroups.id })
            .from(userGroups)
            .where(and(eq(userGroups.apiKeyId, scope.apiKeyId), eq(userGroups.organizationId, organizationId), eq(userGroups.id, groupId)))
            .get() !== undefined,
      ),

    /** Adds the groups not there yet, in one step; for each, in order, whether it was added. */
    insert: (scope: TenantScope, organizationId: string, groups: ReadonlyArray<{ id: string; name: string; createdAt: number }>) =>
      engine.write((db) =>
        groups.map(
          (group) =>
            db
              .insert(userGroups)
              .values({ ...group, apiKeyId: scope.apiKeyId, organizationId })
              .onConflictDoNothing()
              .run().changes > 0,
        ),
      ),

    /** Adds these users to the group (those already in it stay as they are), in one step. */
    addMembers: (scope: TenantScope, organizationId: string, groupId: string, userIds: readonly string[], now: number) =>
      engine.write((db) => {
        for (const userId of userIds)
          db.insert(members).values({ apiKeyId: scope.apiKeyId, organizationId, groupId, userId, createdAt: now }).onConflictDoNothing().run();
      }),

    /** Empties the group; the users it had. */
    removeAll: (scope: TenantScope, organizationId: string, groupId: string) =>
      engine.write((db) => {
        const removed = db
          .select({ userId: members.userId })
          .from(members)
          .where(inGroup(scope.apiKeyId, organizationId, groupId))
          .all();
        db.delete(members)
          .where(inGroup(scope.apiKeyId, organizationId, groupId))
          .run();
        return removed.map((row) => row.userId);
      }),

    /** Takes these users out of the group, in one step; for each, in order, whether it was in it. */
    removeMembers: (scope: TenantScope, organizationId: string, groupId: string, userIds: readonly string[]) =>
      engine.write((db) =>
        userIds.map(
          (userId) =>
            db
              .delete(members)
              .where(and(inGroup(scope.apiKeyId, organizationId, groupId), eq(members.userId, userId)))
              .run().changes > 0,
        ),
      ),

    /** Takes the user out of every group of the organization. */
    removeUser: (scope: TenantScope, organizationId: string, userId: string) =>
      engine.write((db) => {
        db.delete(members)
          .where(and(eq(members.apiKeyId, scope.apiKeyId), eq(members.organizationId, organizationId), eq(members.userId, userId)))
          .run();
      }),
  };
}

export type GroupsRepo = ReturnType<typeof groupsRepo>;
