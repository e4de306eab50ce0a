import { currentTime } from '../clock.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { checkUniqueIds, ensureOrganization, type Outcomes } from './organizations.ts';
import { keyed } from './keyed.ts';

type Deps = { storage: Storage };
type GroupOutcomes = Record<string, { success: boolean; organizationUserGroupId: string; message: string }>;

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

export async function addGroups(
  deps: Deps,
  scope: TenantScope,
  input: {
    organizationId: string;
    createOrganization?: boolean | undefined;
    organizationUserGroups: Array<{ groupId: string; groupName?: string | undefined }>;
  },
): Promise<Outcomes> {
  checkUniqueIds(
    input.organizationUserGroups.map((g) => g.groupId),
    'organizationUserGroups',
  );
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each group's insert is ON CONFLICT DO NOTHING (a second
  // add of it waits for the first's commit, then answers "already exists"), as is the organization's
  return deps.storage.transaction(
    async () => {
      await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
      const groups = input.organizationUserGroups;
      const added = await deps.storage.groups.insert(
        scope,
        input.organizationId,
        groups.map((group) => ({ id: group.groupId, name: group.groupName ?? '', createdAt: currentTime() })),
      );
      const out: Outcomes = keyed();
      groups.forEach((group, i) => {
        out[group.groupId] = added[i]
          ? { success: true, id: group.groupId, message: 'Organization user group added.' }
          : { success: false, id: group.groupId, message: 'Organization user group already exists.' };
      });
      return out;
    },
    { rowLevel: true },
  );
}

/** Adds users the API key knows (added through the users or permissions operations) to a group. */
export async function addGroupUsers(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; organizationUserGroupId: string; userIds: string[] },
): Promise<GroupOutcomes> {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the members' insert is ON CONFLICT DO NOTHING, and the
  // group's foreign key meets its deletion meanwhile (the unit runs again and finds it gone)
  return storage.transaction(
    async () => {
      const groupId = input.organizationUserGroupId;
      const userIds = [...new Set(input.userIds)];
      if (!(await storage.groups.exists(scope, input.organizationId, groupId))) return groupMissing(groupId, userIds);
      const known = await storage.users.findMany(scope, userIds);
      const out: GroupOutcomes = keyed();
      for (const userId of userIds) {
        out[userId] = known.has(userId)
          ? { success: true, organizationUserGroupId: groupId, message: 'User added to organization user group.' }
          : { success: false, organizationUserGroupId: groupId, message: 'User does not exist.' };
      }
      await storage.groups.addMembers(
        scope,
        input.organizationId,
        groupId,
        userIds.filter((userId) => known.has(userId)),
        currentTime(),
      );
      return out;
    },
    { rowLevel: true },
  );
}

/**
 * Removes users from a group. `deleteAll: true` empties the group and wins over `userIds` when both are
 * sent (the answer then lists every user removed); with `userIds` only, a user not in the group is
 * `success: false`. An unknown group fails every user of `userIds`.
 */
export async function deleteGroupUsers(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; organizationUserGroupId: string; userIds?: string[] | undefined; deleteAll?: boolean | undefined },
): Promise<GroupOutcomes> {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each removal is a DELETE whose count answers it; a second
  // removal of a member waits for the first's commit and deletes nothing
  return storage.transaction(
    async () => {
      const groupId = input.organizationUserGroupId;
      const userIds = [...new Set(input.userIds ?? [])];
      // deleteAll alone names no user: the answer is then an empty map
      if (!(await storage.groups.exists(scope, input.organizationId, groupId))) return groupMissing(groupId, userIds);
      const out: GroupOutcomes = keyed();
      if (input.deleteAll) {
        for (const userId of await storage.groups.removeAll(scope, input.organizationId, groupId)) {
          out[userId] = { success: true, organizationUserGroupId: groupId, message: 'User deleted from organization user group.' };
        }
        return out;
      }
      const removed = await storage.groups.removeMembers(scope, input.organizationId, groupId, userIds);
      userIds.forEach((userId, i) => {
        out[userId] = removed[i]
          ? { success: true, organizationUserGroupId: groupId, message: 'User deleted from organization user group.' }
          : { success: false, organizationUserGroupId: groupId, message: 'User is not in the organization user group.' };
      });
      return out;
    },
    { rowLevel: true },
  );
}
