import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { userGroupMembers, userGroups } from '../db/schema.ts';
import { checkUniqueIds, ensureOrganizationIn, type Outcomes } from './organizations.ts';
import { findUserIn } from './users.ts';
import { keyed } from './keyed.ts';

type GroupOutcomes = Record<string, { success: boolean; organizationUserGroupId: string; message: string }>;

function groupExists(tx: Db, apiKeyId: string, organizationId: string, groupId: string): boolean {
  const group = tx
    .select({ id: userGroups.id })
    .from(userGroups)
    .where(and(eq(userGroups.apiKeyId, apiKeyId), eq(userGroups.organizationId, organizationId), eq(userGroups.id, groupId)))
    .get();
  return group !== undefined;
}

/**
 * A group the key does not have (in that organization) fails each named user inside the successful envelope
 * (interface.md, Errors: user-group bulk operations report per item), and nothing is written.
 */
function groupMissing(groupId: string, userIds: Iterable<string>): GroupOutcomes {
  const out: GroupOutcomes = keyed();
  const message = `Organization user group does not exist: ${groupId}.`;
  for (const userId of userIds) out[userId] = { success: false, organizationUserGroupId: groupId, message };
  return out;
}

export function addGroups(
  app: AppContext,
  apiKeyId: string,
  input: { organizationId: string; createOrganization?: boolean | undefined; organizationUserGroups: Array<{ groupId: string; groupName?: string | undefined }> },
): Outcomes {
  checkUniqueIds(input.organizationUserGroups.map((g) => g.groupId), 'organizationUserGroups');
  return transaction(app.db, (tx) => {
    ensureOrganizationIn(tx, apiKeyId, input.organizationId, input.createOrganization ?? false);
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
    if (!groupExists(tx, apiKeyId, input.organizationId, groupId)) return groupMissing(groupId, new Set(input.userIds));
    const out: GroupOutcomes = keyed();
    for (const userId of new Set(input.userIds)) {
      if (!findUserIn(tx, apiKeyId, userId)) {
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
 * `success: false`. An unknown group fails every user of `userIds`.
 */
export function deleteGroupUsers(
  app: AppContext,
  apiKeyId: string,
  input: { organizationId: string; organizationUserGroupId: string; userIds?: string[] | undefined; deleteAll?: boolean | undefined },
): GroupOutcomes {
  return transaction(app.db, (tx) => {
    const groupId = input.organizationUserGroupId;
    // deleteAll alone names no user: the answer is then an empty map
    if (!groupExists(tx, apiKeyId, input.organizationId, groupId)) return groupMissing(groupId, new Set(input.userIds ?? []));
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
