import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { UserInput } from '../../shared/schemas/access.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { memberships, userGroupMembers, users, type MembershipLevel } from '../db/schema.ts';
import { invalid, notFound } from '../http/errors.ts';
import { findMembership, upsertMembership } from './access.ts';
import { findDocument, insertDocument } from './documents.ts';
import { findFolder, insertFolder } from './folders.ts';
import { ensureOrganization, type Outcomes } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';

export type UserRow = typeof users.$inferSelect;

/** The stable 32-hex id the hosted service reports for a user (derived, so it is the same on every call). */
export function internalUserId(apiKeyId: string, userId: string): string {
  return createHash('sha256').update(`${apiKeyId}\0${userId}`).digest('hex').slice(0, 32);
}

/** `Jane Doe` → `J`; without a name, the e-mail's or the id's first letter. */
export function deriveInitial(user: { name?: string | null; email?: string | null; userId: string }): string {
  const source = user.name?.trim() || user.email?.trim() || user.userId;
  return Array.from(source)[0]?.toUpperCase() ?? '';
}

export function findUser(tx: Db, apiKeyId: string, userId: string): UserRow | undefined {
  return tx.select().from(users).where(and(eq(users.apiKeyId, apiKeyId), eq(users.id, userId))).get();
}

/** Creates the user's profile or updates the fields given; `initial` follows `name` unless given. */
export function upsertUser(tx: Db, apiKeyId: string, user: Omit<UserInput, 'accessRole'>): UserRow {
  const now = Date.now();
  const existing = findUser(tx, apiKeyId, user.userId);
  const name = user.name ?? existing?.name ?? null;
  const email = user.email ?? existing?.email ?? null;
  const initial = user.initial ?? (user.name !== undefined || !existing?.initial ? deriveInitial({ name, email, userId: user.userId }) : existing.initial);
  const row: UserRow = {
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
  if (existing) {
    tx.update(users).set(row).where(and(eq(users.apiKeyId, apiKeyId), eq(users.id, user.userId))).run();
  } else {
    tx.insert(users).values(row).run();
  }
  return row;
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
export function addUsers(
  app: AppContext,
  apiKey: ApiKeyRow,
  input: LevelInput & { createDocument?: boolean | undefined; createFolder?: boolean | undefined; users: UserInput[] },
): Outcomes {
  const { level, resourceId } = levelOf(input);
  return transaction(app.db, (tx) => {
    // interface.md users/add rule 4: a missing organization is created.
    ensureOrganization(tx, apiKey.id, input.organizationId, true);
    if (level === 'document' && !findDocument(tx, apiKey.id, input.organizationId, resourceId)) {
      if (!input.createDocument) throw notFound(`Document does not exist: ${resourceId}. Pass createDocument: true to create it.`);
      insertDocument(tx, apiKey, input.organizationId, { documentId: resourceId });
    }
    if (level === 'folder' && !findFolder(tx, apiKey.id, input.organizationId, resourceId)) {
      if (!input.createFolder) throw notFound(`Folder does not exist: ${resourceId}. Pass createFolder: true to create it.`);
      insertFolder(tx, apiKey.id, input.organizationId, null, { folderId: resourceId });
    }
    const out: Outcomes = {};
    for (const user of input.users) {
      const row = upsertUser(tx, apiKey.id, user);
      const key = { apiKeyId: apiKey.id, organizationId: input.organizationId, level, resourceId, userId: user.userId };
      const current = findMembership(tx, key);
      upsertMembership(tx, { ...key, accessRole: user.accessRole ?? current?.accessRole ?? 'editor', expiresAt: null });
      out[user.userId] = { success: true, id: row.internalId, message: 'User added.' };
    }
    return out;
  });
}

/** /v2/users/update: profile and role of users present at the level; others are `User does not exist.` */
export function updateUsers(app: AppContext, apiKeyId: string, input: LevelInput & { users: UserInput[] }): Outcomes {
  const { level, resourceId } = levelOf(input);
  return transaction(app.db, (tx) => {
    const out: Outcomes = {};
    for (const user of input.users) {
      const key = { apiKeyId, organizationId: input.organizationId, level, resourceId, userId: user.userId };
      const current = findMembership(tx, key);
      if (!current) {
        out[user.userId] = { success: false, id: internalUserId(apiKeyId, user.userId), message: 'User does not exist.' };
        continue;
      }
      const row = upsertUser(tx, apiKeyId, user);
      if (user.accessRole && user.accessRole !== current.accessRole) {
        upsertMembership(tx, { ...key, accessRole: user.accessRole, expiresAt: current.expiresAt });
      }
      out[user.userId] = { success: true, id: row.internalId, message: 'User updated.' };
    }
    return out;
  });
}

/**
 * /v1/users/delete: at the organization level the user loses every membership in the organization (its
 * folders and documents too) and its groups there; at a folder or document level only that membership.
 */
export function deleteUsers(app: AppContext, apiKeyId: string, input: LevelInput & { userIds: string[] }): Record<string, { success: boolean; message: string }> {
  const { level, resourceId } = levelOf(input);
  return transaction(app.db, (tx) => {
    const out: Record<string, { success: boolean; message: string }> = {};
    for (const userId of new Set(input.userIds)) {
      const scope = and(eq(memberships.apiKeyId, apiKeyId), eq(memberships.organizationId, input.organizationId), eq(memberships.userId, userId));
      const removed =
        level === 'organization'
          ? tx.delete(memberships).where(scope).run().changes
          : tx.delete(memberships).where(and(scope, eq(memberships.level, level), eq(memberships.resourceId, resourceId))).run().changes;
      if (level === 'organization') {
        tx.delete(userGroupMembers)
          .where(and(eq(userGroupMembers.apiKeyId, apiKeyId), eq(userGroupMembers.organizationId, input.organizationId), eq(userGroupMembers.userId, userId)))
          .run();
      }
      out[userId] = removed > 0 ? { success: true, message: 'User removed.' } : { success: false, message: 'User does not exist.' };
    }
    return out;
  });
}
