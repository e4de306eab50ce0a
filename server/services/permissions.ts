import { and, eq } from 'drizzle-orm';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { ContextPermissions, PermissionResource } from '../../shared/schemas/access.ts';
import type { AccessRole } from '../../shared/schemas/common.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { memberships, users } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { createAccessResolverIn, findMembershipIn, upsertMembershipIn, type AccessDecision } from './access.ts';
import { findDocumentIn } from './documents.ts';
import { findFolder } from './folders.ts';
import { ensureOrganizationIn, findOrganizationIn } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { findUserIn, upsertUserIn } from './users.ts';
import { keyed } from './keyed.ts';

const TOKEN_LIFETIME = '48h';
const ISSUER = 'hearth';

function organizationOf(resource: PermissionResource, index: number): string {
  if (resource.type === 'organization') return resource.id;
  if (!resource.organizationId) throw invalid(`permissions.resources[${index}].organizationId is required for a ${resource.type}.`);
  return resource.organizationId;
}

/**
 * Grants (or removes) a user's roles on organizations, folders and documents: the same memberships that the
 * users operations write, with an optional expiry. All resources or none: a missing folder or document fails
 * the call.
 */
export function changePermissions(tx: Db, apiKeyId: string, userId: string, resources: PermissionResource[], mode: 'add' | 'remove') {
  if (mode === 'add') upsertUserIn(tx, apiKeyId, { userId });
  resources.forEach((resource, index) => {
    const organizationId = organizationOf(resource, index);
    const key = { apiKeyId, organizationId, level: resource.type, resourceId: resource.id, userId };
    if (mode === 'remove') {
      tx.delete(memberships)
        .where(and(eq(memberships.apiKeyId, apiKeyId), eq(memberships.organizationId, organizationId), eq(memberships.level, resource.type), eq(memberships.resourceId, resource.id), eq(memberships.userId, userId)))
        .run();
      return;
    }
    if (resource.type === 'organization') ensureOrganizationIn(tx, apiKeyId, organizationId, true);
    else {
      if (!findOrganizationIn(tx, apiKeyId, organizationId)) throw notFound(`Organization does not exist: ${organizationId}.`);
      const exists = resource.type === 'folder' ? findFolder(tx, apiKeyId, organizationId, resource.id) : findDocumentIn(tx, apiKeyId, organizationId, resource.id);
      if (!exists) throw notFound(`${resource.type === 'folder' ? 'Folder' : 'Document'} does not exist: ${resource.id} in organization ${organizationId}.`);
    }
    upsertMembershipIn(tx, { ...key, accessRole: resource.accessRole ?? 'editor', expiresAt: resource.expiresAt ? resource.expiresAt * 1000 : null });
  });
}

type PermissionsInput = { resources: PermissionResource[]; context?: ContextPermissions | undefined };

export function addPermissions(app: AppContext, apiKeyId: string, userId: string, permissions: PermissionsInput) {
  transaction(app.db, (tx) => {
    changePermissions(tx, apiKeyId, userId, permissions.resources, 'add');
    if (permissions.context) changeContextAccess(tx, apiKeyId, userId, permissions.context, 'add');
  });
  // a role given again can be a lower one (viewer)
  if (permissions.resources.length > 0) app.accessEvents.publish({ apiKeyId, userIds: [userId] });
}

export function removePermissions(app: AppContext, apiKeyId: string, userId: string, permissions: PermissionsInput) {
  transaction(app.db, (tx) => {
    changePermissions(tx, apiKeyId, userId, permissions.resources, 'remove');
    if (permissions.context) changeContextAccess(tx, apiKeyId, userId, permissions.context, 'remove');
  });
  if (permissions.resources.length > 0) app.accessEvents.publish({ apiKeyId, userIds: [userId] });
}

/** A user's context permissions, kept with the profile: key → the values the user may see. */
export function contextAccessOfIn(tx: Db, apiKeyId: string, userId: string): Map<string, string[]> {
  // a Map, not the stored object: a key named like an Object.prototype member ('constructor') is the user's own
  return new Map(Object.entries((findUserIn(tx, apiKeyId, userId)?.metadata.contextAccess as Record<string, string[]> | undefined) ?? {}));
}

function changeContextAccess(tx: Db, apiKeyId: string, userId: string, context: ContextPermissions, mode: 'add' | 'remove') {
  const user = findUserIn(tx, apiKeyId, userId) ?? upsertUserIn(tx, apiKeyId, { userId });
  // A Map, not an object: keys are the caller's (`constructor`, `__proto__` are keys like any other)
  const current = new Map<string, string[]>(Object.entries((user.metadata.contextAccess as Record<string, string[]> | undefined) ?? {}));
  for (const [key, raw] of Object.entries(context.access)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    const set = new Set(current.get(key) ?? []);
    for (const value of values) {
      if (mode === 'add') set.add(value);
      else set.delete(value);
    }
    if (set.size > 0) current.set(key, [...set]);
    else current.delete(key);
  }
  tx.update(users)
    .set({ metadata: { ...user.metadata, contextAccess: Object.fromEntries(current) }, updatedAt: Date.now() })
    .where(and(eq(users.apiKeyId, apiKeyId), eq(users.id, userId)))
    .run();
}

type Entry = { accessRole: AccessRole; accessType?: string; reasons: string[] } | { errorCode: 'permission_denied' | 'does_not_exist'; reasons: string[] };

function entry(decision: AccessDecision, withType: boolean): Entry {
  if (!decision.exists) return { errorCode: 'does_not_exist', reasons: decision.reasons };
  if (!decision.accessRole) return { errorCode: 'permission_denied', reasons: decision.reasons };
  return { accessRole: decision.accessRole, ...(withType && decision.accessType ? { accessType: decision.accessType } : {}), reasons: decision.reasons };
}

/** /v2/auth/permissions/get: each user's effective access to the organization and the given folders and documents. */
export function getPermissions(app: AppContext, apiKeyId: string, input: { organizationId: string; userIds: string[]; folderIds?: string[] | undefined; documentIds?: string[] | undefined }) {
  const resolver = createAccessResolverIn(app.db, apiKeyId, input.organizationId);
  const out: Record<string, { organization: Record<string, Entry>; folders: Record<string, Entry>; documents: Record<string, Entry>; context?: { accessFields: string[] } }> = keyed();
  for (const userId of new Set(input.userIds)) {
    out[userId] = {
      organization: { [input.organizationId]: entry(resolver.organization(userId), false) },
      folders: Object.fromEntries((input.folderIds ?? []).map((id) => [id, entry(resolver.folder(userId, id), true)])),
      documents: Object.fromEntries((input.documentIds ?? []).map((id) => [id, entry(resolver.document(userId, id), true)])),
    };
    const context = contextAccessOfIn(app.db, apiKeyId, userId);
    const accessFields = [...context].flatMap(([key, values]) => values.map((value) => `${key}:${value}`));
    if (accessFields.length > 0) (out[userId] as { context?: { accessFields: string[] } }).context = { accessFields };
  }
  return out;
}

const signingKey = (app: AppContext, apiKeyId: string) => new Uint8Array(app.secrets.derive(`jwt:${apiKeyId}`));

export interface UserTokenClaims extends JWTPayload {
  apiKey: string;
  userId: string;
  name?: string;
  email?: string;
  isAdmin?: boolean;
  resources?: PermissionResource[];
  /** The user's organization, as the legacy /v1/auth/token/get states it. */
  organizationId?: string;
}

/**
 * /v2/auth/generate_token: grants the given permissions (as permissions add does), keeps the profile, and signs
 * an HS256 JWT (48 h) for the user with a secret derived per API key from the master key.
 */
export async function generateUserToken(
  app: AppContext,
  apiKey: ApiKeyRow,
  input: { userId: string; userProperties?: { isAdmin?: boolean | undefined; name?: string | undefined; email?: string | undefined } | undefined; permissions?: PermissionsInput | undefined },
  organizationId?: string,
): Promise<string> {
  const resources = input.permissions?.resources ?? [];
  transaction(app.db, (tx) => {
    upsertUserIn(tx, apiKey.id, { userId: input.userId, name: input.userProperties?.name, email: input.userProperties?.email });
    changePermissions(tx, apiKey.id, input.userId, resources, 'add');
    if (input.permissions?.context) changeContextAccess(tx, apiKey.id, input.userId, input.permissions.context, 'add');
  });
  if (resources.length > 0) app.accessEvents.publish({ apiKeyId: apiKey.id, userIds: [input.userId] });
  const claims: UserTokenClaims = { apiKey: apiKey.id, userId: input.userId };
  if (input.userProperties?.name !== undefined) claims.name = input.userProperties.name;
  if (input.userProperties?.email !== undefined) claims.email = input.userProperties.email;
  if (input.userProperties?.isAdmin !== undefined) claims.isAdmin = input.userProperties.isAdmin;
  if (resources.length > 0) claims.resources = resources;
  if (organizationId !== undefined) claims.organizationId = organizationId;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.userId)
    .setIssuer(ISSUER)
    .setAudience(apiKey.id)
    .setIssuedAt()
    .setExpirationTime(TOKEN_LIFETIME)
    .sign(signingKey(app, apiKey.id));
}

/**
 * The legacy /v1/auth/token/get: generate_token's token for a user who belongs to `userProperties.organizationId`.
 * A user not yet in that organization joins it as generate_token's organization resource joins one (editor, the
 * organization created when missing); an existing membership keeps its role, so asking for a token never changes
 * what the user may do.
 */
export function legacyUserToken(
  app: AppContext,
  apiKey: ApiKeyRow,
  input: { userId: string; userProperties?: { organizationId?: string | undefined; isAdmin?: boolean | undefined; name?: string | undefined; email?: string | undefined } | undefined },
): Promise<string> {
  const { organizationId, ...userProperties } = input.userProperties ?? {};
  const member =
    organizationId !== undefined && findMembershipIn(app.db, { apiKeyId: apiKey.id, organizationId, level: 'organization', resourceId: organizationId, userId: input.userId });
  const resources: PermissionResource[] = organizationId !== undefined && !member ? [{ type: 'organization', id: organizationId }] : [];
  return generateUserToken(app, apiKey, { userId: input.userId, userProperties, permissions: { resources } }, organizationId);
}

/** The claims of a token made by generateUserToken for this API key, or null (bad signature, expired, other key). */
export async function verifyUserToken(app: AppContext, apiKeyId: string, token: string): Promise<UserTokenClaims | null> {
  try {
    const { payload } = await jwtVerify<UserTokenClaims>(token, signingKey(app, apiKeyId), { issuer: ISSUER, audience: apiKeyId, algorithms: ['HS256'] });
    return payload.apiKey === apiKeyId ? payload : null;
  } catch {
    return null;
  }
}
