import type Database from 'better-sqlite3';
import { hash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { UserInput } from '../../shared/schemas/access.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { connectionOf, preparedFor } from '../db/prepared.ts';
import { memberships, userGroupMembers, users, type MembershipLevel } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { findMembershipIn, upsertMembershipIn } from './access.ts';
import { findDocumentIn, insertDocumentIn } from './documents.ts';
import { findFolder, insertFolder } from './folders.ts';
import { ensureOrganizationIn, type Outcomes } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { keyed } from './keyed.ts';

export type UserRow = typeof users.$inferSelect;

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

const byId = preparedFor((db) =>
  db
    .select()
    .from(users)
    .where(and(eq(users.apiKeyId, sql.placeholder('apiKeyId')), eq(users.id, sql.placeholder('id'))))
    .prepare(),
);

export function findUserIn(tx: Db, apiKeyId: string, userId: string): UserRow | undefined {
  return byId(tx).get({ apiKeyId, id: userId });
}

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

/** Creates the user's profile or updates the fields given; `initial` follows `name` unless given. */
export function upsertUserIn(tx: Db, apiKeyId: string, user: Omit<UserInput, 'accessRole'>): UserRow {
  const existing = findUserIn(tx, apiKeyId, user.userId);
  return saveUser(connectionOf(tx), mergeUser(apiKeyId, user, existing, Date.now()), existing);
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
  const out = transaction(app.db, (tx) => {
    // interface.md users/add rule 4: a missing organization is created.
    ensureOrganizationIn(tx, apiKey.id, input.organizationId, true);
    if (level === 'document' && !findDocumentIn(tx, apiKey.id, input.organizationId, resourceId)) {
      if (!input.createDocument) throw notFound(`Document does not exist: ${resourceId}. Pass createDocument: true to create it.`);
      insertDocumentIn(tx, apiKey, input.organizationId, { documentId: resourceId });
    }
    if (level === 'folder' && !findFolder(tx, apiKey.id, input.organizationId, resourceId)) {
      if (!input.createFolder) throw notFound(`Folder does not exist: ${resourceId}. Pass createFolder: true to create it.`);
      insertFolder(tx, apiKey.id, input.organizationId, null, { folderId: resourceId });
    }
    return addUsersInBulk(app.sqlite, apiKey.id, input.organizationId, level, resourceId, input.users);
  });
  // a role given again can be a lower one (viewer)
  app.accessEvents.publish({ apiKeyId: apiKey.id, organizationId: input.organizationId, userIds: input.users.map((u) => u.userId) });
  return out;
}

// users/add in bulk: plain SQL prepared once (the statement cache of db/client.ts keeps it compiled), one read of
// the batch's existing profiles, then one write per profile and one per membership. Building each query with
// drizzle cost ~280 µs per user, most of users/add; these statements cost a few µs. The rules are mergeUser's
// and upsertMembershipIn's, applied in the order of the list (a repeated user id sees what the earlier entry wrote).
const USER_COLUMNS =
  'api_key_id AS apiKeyId, id, internal_id AS internalId, name, email, initial, photo_url AS photoUrl, metadata, created_at AS createdAt, updated_at AS updatedAt';
/** The batch's ids travel as one JSON array: one statement for any batch size; SQLite looks each id up by key. */
const SELECT_USERS = `SELECT ${USER_COLUMNS} FROM users WHERE api_key_id = ? AND id IN (SELECT value FROM json_each(?))`;
const INSERT_USER =
  'INSERT INTO users (api_key_id, id, internal_id, name, email, initial, photo_url, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const UPDATE_USER =
  'UPDATE users SET internal_id = ?, name = ?, email = ?, initial = ?, photo_url = ?, metadata = ?, created_at = ?, updated_at = ? WHERE api_key_id = ? AND id = ?';
/** upsertMembershipIn with the role `given ?? current ?? 'editor'` decided by SQLite, so the membership is not read. */
const UPSERT_MEMBERSHIP =
  "INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, coalesce(?, 'editor'), NULL, ?, ?) " +
  'ON CONFLICT (api_key_id, organization_id, level, resource_id, user_id) DO UPDATE SET access_role = coalesce(?, access_role), expires_at = NULL, updated_at = ?';

type StoredUser = Omit<UserRow, 'metadata'> & { metadata: string };

/**
 * Writes mergeUser's row, an update of the stored profile or an insert, and returns the stored row. A profile the
 * call leaves as it was is not written and keeps its `updatedAt` (the time it last changed): calls that name
 * users (a notification, a comment, users/add on every sign-in) mostly name them unchanged, and each such write
 * cost a statement and a page of the commit. mergeUser keeps the internal id, metadata and creation time, so the
 * four fields below are all a call can change.
 */
function saveUser(sqlite: Database.Database, row: UserRow, existing: UserRow | undefined): UserRow {
  if (existing !== undefined && existing.name === row.name && existing.email === row.email && existing.initial === row.initial && existing.photoUrl === row.photoUrl) {
    return existing;
  }
  // metadata is JSON text, as drizzle's json column reads and writes it
  const metadata = JSON.stringify(row.metadata);
  if (existing !== undefined) sqlite.prepare(UPDATE_USER).run(row.internalId, row.name, row.email, row.initial, row.photoUrl, metadata, row.createdAt, row.updatedAt, row.apiKeyId, row.id);
  else sqlite.prepare(INSERT_USER).run(row.apiKeyId, row.id, row.internalId, row.name, row.email, row.initial, row.photoUrl, metadata, row.createdAt, row.updatedAt);
  return row;
}

function addUsersInBulk(sqlite: Database.Database, apiKeyId: string, organizationId: string, level: MembershipLevel, resourceId: string, list: UserInput[]): Outcomes {
  const known = new Map<string, UserRow>();
  const ids = [...new Set(list.map((u) => u.userId))];
  for (const stored of sqlite.prepare<[string, string], StoredUser>(SELECT_USERS).all(apiKeyId, JSON.stringify(ids))) {
    known.set(stored.id, { ...stored, metadata: JSON.parse(stored.metadata) as Record<string, unknown> });
  }
  const upsertMembershipRow = sqlite.prepare(UPSERT_MEMBERSHIP);
  const out: Outcomes = keyed();
  for (const user of list) {
    const now = Date.now();
    const existing = known.get(user.userId);
    const row = saveUser(sqlite, mergeUser(apiKeyId, user, existing, now), existing);
    known.set(row.id, row);
    const role = user.accessRole ?? null;
    upsertMembershipRow.run(apiKeyId, organizationId, level, resourceId, row.id, role, now, now, role, now);
    out[user.userId] = { success: true, id: row.internalId, message: 'User added.' };
  }
  return out;
}

/** /v2/users/update: profile and role of users present at the level; others are `User does not exist.` */
export function updateUsers(app: AppContext, apiKeyId: string, input: LevelInput & { users: UserInput[] }): Outcomes {
  const { level, resourceId } = levelOf(input);
  const outcomes = transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const user of input.users) {
      const key = { apiKeyId, organizationId: input.organizationId, level, resourceId, userId: user.userId };
      const current = findMembershipIn(tx, key);
      if (!current) {
        out[user.userId] = { success: false, id: internalUserId(apiKeyId, user.userId), message: 'User does not exist.' };
        continue;
      }
      const row = upsertUserIn(tx, apiKeyId, user);
      if (user.accessRole && user.accessRole !== current.accessRole) {
        upsertMembershipIn(tx, { ...key, accessRole: user.accessRole, expiresAt: current.expiresAt });
      }
      out[user.userId] = { success: true, id: row.internalId, message: 'User updated.' };
    }
    return out;
  });
  app.accessEvents.publish({ apiKeyId, organizationId: input.organizationId, userIds: input.users.map((u) => u.userId) });
  return outcomes;
}

/**
 * /v1/users/delete: at the organization level the user loses every membership in the organization (its
 * folders and documents too) and its groups there; at a folder or document level only that membership.
 */
export function deleteUsers(app: AppContext, apiKeyId: string, input: LevelInput & { userIds: string[] }): Record<string, { success: boolean; message: string }> {
  const { level, resourceId } = levelOf(input);
  const outcomes = transaction(app.db, (tx) => {
    const out: Record<string, { success: boolean; message: string }> = keyed();
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
  app.accessEvents.publish({ apiKeyId, organizationId: input.organizationId, userIds: input.userIds });
  return outcomes;
}
