import { currentTime } from '../clock.ts';
import { hash } from 'node:crypto';
import type { UserInput } from '../../shared/schemas/access.ts';
import type { AccessRole } from '../../shared/schemas/common.ts';
import type { Storage } from '../db/repos/index.ts';
import type { MembershipLevel } from '../db/repos/memberships.ts';
import type { UserRow, UserWrite } from '../db/repos/users.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import type { AccessEvents } from './access-events.ts';
import { insertDocument } from './documents.ts';
import { insertFolder } from './folders.ts';
import { ensureOrganization, type Outcomes } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { keyed } from './keyed.ts';

export type { UserRow };
type Deps = { storage: Storage };

/**
 * The stable 32-hex id the hosted service reports for a user (derived, so it is the same on every call): the
 * first half of sha256(apiKeyId NUL userId). One-shot `hash` costs a third of a createHash object's (users/add
 * derives one per new user).
 */
export function internalUserId(apiKeyId: string, userId: string): string {
  return hash('sha256', `${apiKeyId}\0${userId}`, 'hex').slice(0, 32);
}

/** `Jane Doe` → `J`; without a name, the e-mail's or the id's first letter. */
export function deriveInitial(user: { name?: string | null; email?: string | null; userId: string }): string {
  const source = user.name?.trim() || user.email?.trim() || user.userId;
  return Array.from(source)[0]?.toUpperCase() ?? '';
}

/** The user's profile, or undefined. */
export const findUser = (deps: Deps, scope: TenantScope, userId: string): Promise<UserRow | undefined> => deps.storage.users.find(scope, userId);

/**
 * The profile after a users call: `existing` with the fields given; `initial` follows `name` unless given (or
 * when none is stored); the internal id, metadata and creation time of an existing user are kept.
 */
function mergeUser(apiKeyId: string, user: Omit<UserInput, 'accessRole'>, existing: UserRow | undefined, now: number): UserRow {
  const name = user.name ?? existing?.name ?? null;
  const email = user.email ?? existing?.email ?? null;
  const initial = user.initial ?? (user.name !== undefined || !existing?.initial ? deriveInitial({ name, email, userId: user.userId }) : existing.initial);
  return {
    apiKeyId,
    id: user.userId,
    internalId: existing?.internalId ?? internalUserId(apiKeyId, user.userId),
    name,
    email,
    initial,
    photoUrl: user.photoUrl ?? existing?.photoUrl ?? null,
    metadata: existing?.metadata ?? {},
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
}

/**
 * What mergeUser's row asks to write: nothing when the call leaves the profile as it was (it keeps its
 * `updatedAt`, the time it last changed), else an update of the stored profile or an insert. Calls that name users
 * (a notification, a comment, users/add on every sign-in) mostly name them unchanged, and each such write cost a
 * statement and a page of the commit. mergeUser keeps the internal id, metadata and creation time, so the four
 * fields below are all a call can change.
 */
function writeOf(row: UserRow, existing: UserRow | undefined): UserWrite | undefined {
  if (
    existing !== undefined &&
    existing.name === row.name &&
    existing.email === row.email &&
    existing.initial === row.initial &&
    existing.photoUrl === row.photoUrl
  ) {
    return undefined;
  }
  return { row, insert: existing === undefined, before: existing };
}

/** Creates the user's profile or updates the fields given; `initial` follows `name` unless given. */
export async function upsertUser(deps: Deps, scope: TenantScope, user: Omit<UserInput, 'accessRole'>): Promise<UserRow> {
  const upsert = async () => {
    const existing = await deps.storage.users.find(scope, user.userId);
    const row = mergeUser(scope.apiKeyId, user, existing, currentTime());
    const write = writeOf(row, existing);
    if (!write) return existing as UserRow;
    await deps.storage.users.save(scope, [write]);
    return row;
  };
  // the read and the write in one unit of work: the caller's, or one of its own
  return deps.storage.inTransaction() ? upsert() : deps.storage.transaction(upsert);
}

/**
 * upsertUser for a list of users, in the list's order (a repeated id sees what the earlier entry wrote): one read of
 * their profiles and one write of the changed ones (a notification names up to 10,000 users). `profiles`: the
 * stored profiles of every user of the list, read already in the caller's unit of work (absent: not stored).
 */
export function upsertUsers(
  deps: Deps,
  scope: TenantScope,
  list: ReadonlyArray<Omit<UserInput, 'accessRole'>>,
  profiles?: ReadonlyMap<string, UserRow>,
): Promise<void> {
  const upsert = async () => {
    const known = profiles ? new Map(profiles) : await deps.storage.users.findMany(scope, [...new Set(list.map((u) => u.userId))]);
    const writes: UserWrite[] = [];
    for (const user of list) {
      const existing = known.get(user.userId);
      const merged = mergeUser(scope.apiKeyId, user, existing, currentTime());
      const write = writeOf(merged, existing);
      if (!write) continue;
      writes.push(write);
      known.set(merged.id, merged);
    }
    if (writes.length > 0) await deps.storage.users.save(scope, writes);
  };
  return deps.storage.inTransaction() ? upsert() : deps.storage.transaction(upsert);
}

export function describeUser(row: UserRow) {
  return { userId: row.id, name: row.name, email: row.email, initial: row.initial, photoUrl: row.photoUrl };
}

interface LevelInput {
  organizationId: string;
  documentId?: string | undefined;
  folderId?: string | undefined;
}

/** Where a users call applies: the document, the folder, or (neither given) the organization. */
export function levelOf(input: LevelInput): { level: MembershipLevel; resourceId: string } {
  if (input.documentId !== undefined && input.folderId !== undefined) throw invalid('Use either documentId or folderId, not both.');
  if (input.documentId !== undefined) return { level: 'document', resourceId: input.documentId };
  if (input.folderId !== undefined) return { level: 'folder', resourceId: input.folderId };
  return { level: 'organization', resourceId: input.organizationId };
}

/** /v2/users/add: profiles upserted, memberships at the level (default role editor); missing parents made on request. */
export async function addUsers(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  apiKey: Pick<ApiKeyRow, 'settings'>,
  input: LevelInput & { createDocument?: boolean | undefined; createFolder?: boolean | undefined; users: UserInput[] },
): Promise<Outcomes> {
  const { level, resourceId } = levelOf(input);
  const { storage } = deps;
  /** The document or folder the users are added to, held; made first when it is missing and the call says so. */
  const heldOrMade = async (
    rows: { hold(scope: TenantScope, organizationId: string, id: string): Promise<unknown> },
    kind: 'Document' | 'Folder',
    flag: 'createDocument' | 'createFolder',
    create: boolean | undefined,
    make: () => Promise<unknown>,
  ) => {
    if (await rows.hold(scope, input.organizationId, resourceId)) return;
    if (!create) throw notFound(`${kind} does not exist: ${resourceId}. Pass ${flag}: true to create it.`);
    await make();
    // made by this unit, or by another since the hold found none: held as well (gone again: not there)
    if (!(await rows.hold(scope, input.organizationId, resourceId))) throw notFound(`${kind} does not exist: ${resourceId}.`);
  };
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization and a document or folder made ON CONFLICT
  // DO NOTHING, the document or folder granted on held (`documents.hold`, `folders.hold`: a delete of it meanwhile and
  // this grant exclude each other), the profiles written optimistically (`users.save`) and the memberships upserted
  // by one statement per run (`memberships.grant`)
  const out = await storage.transaction(
    async () => {
      // interface.md users/add rule 4: a missing organization is created.
      await ensureOrganization(deps, scope, input.organizationId, true);
      if (level === 'document')
        await heldOrMade(storage.documents, 'Document', 'createDocument', input.createDocument, () =>
          insertDocument(deps, scope, apiKey, input.organizationId, { documentId: resourceId }),
        );
      if (level === 'folder')
        await heldOrMade(storage.folders, 'Folder', 'createFolder', input.createFolder, () =>
          insertFolder(deps, scope, input.organizationId, null, { folderId: resourceId }),
        );
      return addUsersInBulk(deps, scope, { organizationId: input.organizationId, level, resourceId }, input.users);
    },
    { rowLevel: true },
  );
  // a role given again can be a lower one (viewer)
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId, userIds: input.users.map((u) => u.userId) });
  return out;
}

/**
 * users/add in bulk: one read of the batch's stored profiles, then one step that writes the profiles and one that
 * writes the memberships (users/add names a thousand users a call). The rules are mergeUser's and upsertUser's,
 * and the membership's role is `given ?? current ?? 'editor'`, applied in the order of the list (a repeated user
 * id sees what the earlier entry wrote).
 */
async function addUsersInBulk(
  deps: Deps,
  scope: TenantScope,
  at: { organizationId: string; level: MembershipLevel; resourceId: string },
  list: UserInput[],
): Promise<Outcomes> {
  const known = await deps.storage.users.findMany(scope, [...new Set(list.map((u) => u.userId))]);
  const writes: UserWrite[] = [];
  const grants: Array<{ userId: string; accessRole: AccessRole | null; now: number }> = [];
  const out: Outcomes = keyed();
  for (const user of list) {
    const now = currentTime();
    const existing = known.get(user.userId);
    const merged = mergeUser(scope.apiKeyId, user, existing, now);
    const write = writeOf(merged, existing);
    if (write) writes.push(write);
    const row = write ? merged : (existing as UserRow);
    known.set(row.id, row);
    grants.push({ userId: row.id, accessRole: user.accessRole ?? null, now });
    out[user.userId] = { success: true, id: row.internalId, message: 'User added.' };
  }
  await deps.storage.users.save(scope, writes);
  await deps.storage.memberships.grant(scope, at, grants);
  return out;
}

/** /v2/users/update: profile and role of users present at the level; others are `User does not exist.` */
export async function updateUsers(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: LevelInput & { users: UserInput[] },
): Promise<Outcomes> {
  const { level, resourceId } = levelOf(input);
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the profile written optimistically (`users.save`), the
  // role changed by an update of the membership read, which throws ConcurrentChange when a delete took it meanwhile
  // (the unit runs again and answers the user absent) instead of making it again
  const outcomes = await deps.storage.transaction(
    async () => {
      const out: Outcomes = keyed();
      for (const user of input.users) {
        const key = { organizationId: input.organizationId, level, resourceId, userId: user.userId };
        const current = await deps.storage.memberships.find(scope, key);
        if (!current) {
          out[user.userId] = { success: false, id: internalUserId(scope.apiKeyId, user.userId), message: 'User does not exist.' };
          continue;
        }
        const row = await upsertUser(deps, scope, user);
        if (user.accessRole && user.accessRole !== current.accessRole) await deps.storage.memberships.changeRole(scope, key, user.accessRole, currentTime());
        out[user.userId] = { success: true, id: row.internalId, message: 'User updated.' };
      }
      return out;
    },
    { rowLevel: true },
  );
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId, userIds: input.users.map((u) => u.userId) });
  return outcomes;
}

/**
 * /v1/users/delete: at the organization level the user loses every membership in the organization (its
 * folders and documents too) and its groups there; at a folder or document level only that membership
 * (db/tenancy.ts, USER_DATA: what the user did stays).
 */
export async function deleteUsers(
  deps: Deps & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: LevelInput & { userIds: string[] },
): Promise<Record<string, { success: boolean; message: string }>> {
  const { level, resourceId } = levelOf(input);
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): DELETEs whose counts are the answers (of two deletes of
  // one membership at once, the second waits for the first's commit and deletes nothing)
  const outcomes = await storage.transaction(
    async () => {
      const out: Record<string, { success: boolean; message: string }> = keyed();
      for (const userId of new Set(input.userIds)) {
        let removed: boolean;
        if (level === 'organization') {
          removed = (await storage.memberships.removeUser(scope, input.organizationId, userId)) > 0;
          await storage.groups.removeUser(scope, input.organizationId, userId);
        } else removed = await storage.memberships.remove(scope, { organizationId: input.organizationId, level, resourceId, userId });
        out[userId] = removed ? { success: true, message: 'User removed.' } : { success: false, message: 'User does not exist.' };
      }
      return out;
    },
    { rowLevel: true },
  );
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, organizationId: input.organizationId, userIds: input.userIds });
  return outcomes;
}
