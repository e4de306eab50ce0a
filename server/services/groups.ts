import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { userGroupMembers, userGroups } from '../db/schema.ts';
import { notFound } from '../http/errors.ts';
import { checkUniqueIds, ensureOrganization, type Outcomes } from './organizations.ts';
import { findUser } from './users.ts';
import { keyed } from './keyed.ts';

type GroupOutcomes = Record<string, { success: boolean; organizationUserGroupId: string; message: string }>;

function requireGroup(tx: Db, apiKeyId: string, organizationId: string, groupId: string) {
  const group = tx
    .select()
    .from(userGroups)
    .where(and(eq(userGroups.apiKeyId, apiKeyId), eq(userGroups.organizationId, organizationId), eq(userGroups.id, groupId)))
    .get();
  if (!group) throw notFound(`Organization user group does not exist: ${groupId}.`);
  return group;
}

export function addGroups(
  app: AppContext,
  apiKeyId: string,
  input: { organizationId: string; createOrganization?: boolean | undefined; organizationUserGroups: Array<{ groupId: string; groupName?: string | undefined }> },
): Outcomes {
  checkUniqueIds(input.organizationUserGroups.map((g) => g.groupId), 'organizationUserGroups');
  return transaction(app.db, (tx) => {
    ensureOrganization(tx, apiKeyId, input.organizationId, input.createOrganization ?? false);
    const out: Outcomes = keyed();
    for (const group of input.organizationUserGroups) {
      const inserted = tx
        .insert(userGroups)
        .values({ apiKeyId, organizationId: input.organizationId, id: group.groupId, name: group.groupName ?? '', createdAt: Date.now() })
        .onConflictDoNothing()
        .run();
      out[group.groupId] =
        inserted.changes > 0
          ? { success: true, id: group.groupId, message: 'Organization user group added.' }
          : { success: false, id: group.groupId, message: 'Organization user group already exists.' };
    }
    return out;
  });
}

/** Adds users the API key knows (added through the users or permissions operations) to a group. */
export function addGroupUsers(app: AppContext, apiKeyId: string, input: { organizationId: string; organizationUserGroupId: string; userIds: string[] }): GroupOutcomes {
  return transaction(app.db, (tx) => {
    const groupId = input.organizationUserGroupId;
    requireGroup(tx, apiKeyId, input.organizationId, groupId);
    const out: GroupOutcomes = keyed();
    for (const userId of new Set(input.userIds)) {
      if (!findUser(tx, apiKeyId, userId)) {
        out[userId] = { success: false, organizationUserGroupId: groupId, message: 'User does not exist.' };
        continue;
      }
      tx.insert(userGroupMembers).values({ apiKeyId, organizationId: input.organizationId, groupId, userId, createdAt: Date.now() }).onConflictDoNothing().run();
      out[userId] = { success: true, organizationUserGroupId: groupId, message: 'User added to organization user group.' };
    }
    return out;
  });
}

/**
 * Removes users from a group. `deleteAll: true` empties the group and wins over `userIds` when both are
 * sent (the answer then lists every user removed); with `userIds` only, a user not in the group is
 * `success: false`.
 */
export function deleteGroupUsers(
  app: AppContext,
  apiKeyId: string,
  input: { organizationId: string; organizationUserGroupId: string; userIds?: string[] | undefined; deleteAll?: boolean | undefined },
): GroupOutcomes {
  return transaction(app.db, (tx) => {
    const groupId = input.organizationUserGroupId;
    requireGroup(tx, apiKeyId, input.organizationId, groupId);
    const inGroup = and(eq(userGroupMembers.apiKeyId, apiKeyId), eq(userGroupMembers.organizationId, input.organizationId), eq(userGroupMembers.groupId, groupId));
    const out: GroupOutcomes = keyed();
    if (input.deleteAll) {
      const members = tx.select({ userId: userGroupMembers.userId }).from(userGroupMembers).where(inGroup).all();
      tx.delete(userGroupMembers).where(inGroup).run();
      for (const { userId } of members) out[userId] = { success: true, organizationUserGroupId: groupId, message: 'User deleted from organization user group.' };
      return out;
    }
    for (const userId of new Set(input.userIds ?? [])) {
      const removed = tx.delete(userGroupMembers).where(and(inGroup, eq(userGroupMembers.userId, userId))).run().changes;
      out[userId] =
        removed > 0
          ? { success: true, organizationUserGroupId: groupId, message: 'User deleted from organization user group.' }
          : { success: false, organizationUserGroupId: groupId, message: 'User is not in the organization user group.' };
    }
    return out;
  });
}

/** The groups a user belongs to in an organization (for explanations and, later, mentions). */
export function groupsOfUser(db: Db, apiKeyId: string, organizationId: string, userIds: string[]) {
  return db
    .select()
    .from(userGroupMembers)
    .where(and(eq(userGroupMembers.apiKeyId, apiKeyId), eq(userGroupMembers.organizationId, organizationId), inArray(userGroupMembers.userId, userIds)))
    .all();
}
