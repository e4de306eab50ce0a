import { currentDate, currentTime } from '../clock.ts';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { ContextPermissions, PermissionResource } from '../../shared/schemas/access.ts';
import type { AccessRole } from '../../shared/schemas/common.ts';
import type { Storage } from '../db/repos/index.ts';
import type { UserRow } from '../db/repos/users.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import { createAccessResolver, type AccessDecision } from './access.ts';
import { askPermissionProvider, type AccessQuestion, type ProviderDecision } from './permission-provider.ts';
import type { AccessEvents } from './access-events.ts';
import { ensureOrganization } from './organizations.ts';
import { upsertUser } from './users.ts';
import { keyed } from './keyed.ts';
import type { Secrets } from '../security/secrets.ts';

/** 48 hours, in seconds; counted on Hearth's clock (server/clock.ts), which testing mode can advance. */
const TOKEN_LIFETIME_S = 48 * 60 * 60;
const ISSUER = 'hearth';

type Deps = { storage: Storage };

function organizationOf(resource: PermissionResource, index: number): string {
  if (resource.type === 'organization') return resource.id;
  if (!resource.organizationId) throw invalid(`permissions.resources[${index}].organizationId is required for a ${resource.type}.`);
  return resource.organizationId;
}

/**
 * Grants (or removes) a user's roles on organizations, folders and documents: the same memberships that the
 * users operations write, with an optional expiry. All resources or none: a missing folder or document fails
 * the call. Runs in the caller's unit of work.
 */
async function changePermissions(deps: Deps, scope: TenantScope, userId: string, resources: PermissionResource[], mode: 'add' | 'remove') {
  const { storage } = deps;
  if (mode === 'add') await upsertUser(deps, scope, { userId });
  for (const [index, resource] of resources.entries()) {
    const organizationId = organizationOf(resource, index);
    const key = { organizationId, level: resource.type, resourceId: resource.id, userId };
    if (mode === 'remove') {
      await storage.memberships.remove(scope, key);
      continue;
    }
    if (resource.type === 'organization') await ensureOrganization(deps, scope, organizationId, true);
    else {
      if (!(await storage.organizations.find(scope, organizationId))) throw notFound(`Organization does not exist: ${organizationId}.`);
      // held, not only read: a delete of it meanwhile and this grant exclude each other (`folders.hold`)
      const exists =
        resource.type === 'folder'
          ? await storage.folders.hold(scope, organizationId, resource.id)
          : await storage.documents.hold(scope, organizationId, resource.id);
      if (!exists) throw notFound(`${resource.type === 'folder' ? 'Folder' : 'Document'} does not exist: ${resource.id} in organization ${organizationId}.`);
    }
    await storage.memberships.upsert(
      scope,
      { ...key, accessRole: resource.accessRole ?? 'editor', expiresAt: resource.expiresAt ? resource.expiresAt * 1000 : null },
      currentTime(),
    );
  }
}

type PermissionsInput = { resources: PermissionResource[]; context?: ContextPermissions | undefined };

/**
 * Row level on PostgreSQL (docs/storage.md, "Invariants"): the user is inserted or merged optimistically
 * (`users.save`), the organization `ON CONFLICT DO NOTHING`, a folder or document granted on is held
 * (`folders.hold`, `documents.hold`), a membership upserted or deleted by one statement, and context permissions
 * merged under the user's lock.
 */
const ROW_LEVEL = { rowLevel: true };

export async function addPermissions(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, userId: string, permissions: PermissionsInput) {
  await deps.storage.transaction(async () => {
    await changePermissions(deps, scope, userId, permissions.resources, 'add');
    if (permissions.context) await changeContextAccess(deps, scope, userId, permissions.context, 'add');
  }, ROW_LEVEL);
  // a role given again can be a lower one (viewer)
  if (permissions.resources.length > 0) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, userIds: [userId] });
}

export async function removePermissions(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, userId: string, permissions: PermissionsInput) {
  await deps.storage.transaction(async () => {
    await changePermissions(deps, scope, userId, permissions.resources, 'remove');
    if (permissions.context) await changeContextAccess(deps, scope, userId, permissions.context, 'remove');
  }, ROW_LEVEL);
  if (permissions.resources.length > 0) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, userIds: [userId] });
}

/** A user's context permissions, kept with the profile: key → the values the user may see. */
export function contextAccessOfUser(user: UserRow | undefined): Map<string, string[]> {
  // a Map, not the stored object: a key named like an Object.prototype member ('constructor') is the user's own
  return new Map(Object.entries((user?.metadata.contextAccess as Record<string, string[]> | undefined) ?? {}));
}

/** A user's context permissions, kept with the profile: key → the values the user may see. */
export async function contextAccessOf(deps: Deps, scope: TenantScope, userId: string): Promise<Map<string, string[]>> {
  return contextAccessOfUser(await deps.storage.users.find(scope, userId));
}

async function changeContextAccess(deps: Deps, scope: TenantScope, userId: string, context: ContextPermissions, mode: 'add' | 'remove') {
  // the user's lock, then the read: two changes at once merge one after the other
  await deps.storage.users.lock(scope, userId);
  const user = (await deps.storage.users.find(scope, userId)) ?? (await upsertUser(deps, scope, { userId }));
  // A Map, not an object: keys are the caller's (`constructor`, `__proto__` are keys like any other)
  const current = contextAccessOfUser(user);
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
  await deps.storage.users.setMetadata(scope, userId, { ...user.metadata, contextAccess: Object.fromEntries(current) }, currentTime());
}

type Entry = { accessRole: AccessRole; accessType?: string; reasons: string[] } | { errorCode: 'permission_denied' | 'does_not_exist'; reasons: string[] };

function entry(decision: AccessDecision, withType: boolean): Entry {
  if (!decision.exists) return { errorCode: 'does_not_exist', reasons: decision.reasons };
  if (!decision.accessRole) return { errorCode: 'permission_denied', reasons: decision.reasons };
  return { accessRole: decision.accessRole, ...(withType && decision.accessType ? { accessType: decision.accessType } : {}), reasons: decision.reasons };
}

type UserPermissions = {
  organization: Record<string, Entry>;
  folders: Record<string, Entry>;
  documents: Record<string, Entry>;
  context?: { accessFields: string[] };
};

/** A permission provider's decision as a permissions get entry (the provider says nothing of access types). */
const providerEntry = (decision: ProviderDecision): Entry =>
  decision.accessRole ? { accessRole: decision.accessRole, reasons: decision.reasons } : { errorCode: 'permission_denied', reasons: decision.reasons };

/**
 * In the permission provider mode: the provider's decisions, asked in one request (services/permission-provider.ts);
 * null when the key is not in that mode.
 */
async function providerPermissions(
  deps: Parameters<typeof askPermissionProvider>[0],
  scope: TenantScope,
  input: { organizationId: string; folderIds?: string[] | undefined; documentIds?: string[] | undefined },
  userIds: string[],
) {
  const key = await deps.storage.keys.find(scope);
  if (!key) return null;
  const { organizationId } = input;
  const questions = userIds.flatMap((userId): AccessQuestion[] => [
    { userId, type: 'organization', resourceId: organizationId, organizationId },
    ...(input.folderIds ?? []).map((resourceId): AccessQuestion => ({ userId, type: 'folder', resourceId, organizationId })),
    ...(input.documentIds ?? []).map((resourceId): AccessQuestion => ({ userId, type: 'document', resourceId, organizationId })),
  ]);
  const decisions = await askPermissionProvider(deps, scope, key, questions);
  if (!decisions) return null;
  let i = 0;
  const next = () => providerEntry(decisions[i++] as ProviderDecision);
  return userIds.map(() => ({
    organization: { [organizationId]: next() },
    folders: Object.fromEntries((input.folderIds ?? []).map((id) => [id, next()])),
    documents: Object.fromEntries((input.documentIds ?? []).map((id) => [id, next()])),
  }));
}

/**
 * /v2/auth/permissions/get: each user's effective access to the organization and the given folders and documents
 * (the permission provider's decisions in that mode).
 */
export async function getPermissions(
  deps: Deps & Parameters<typeof askPermissionProvider>[0],
  scope: TenantScope,
  input: { organizationId: string; userIds: string[]; folderIds?: string[] | undefined; documentIds?: string[] | undefined },
) {
  const userIds = [...new Set(input.userIds)];
  const resolver = createAccessResolver(deps, scope, input.organizationId);
  // every decision in one step of storage, and the users' profiles in one more
  const decided =
    (await providerPermissions(deps, scope, input, userIds)) ??
    (await resolver.batch((r) =>
      userIds.map((userId) => ({
        organization: { [input.organizationId]: entry(r.organization(userId), false) },
        folders: Object.fromEntries((input.folderIds ?? []).map((id) => [id, entry(r.folder(userId, id), true)])),
        documents: Object.fromEntries((input.documentIds ?? []).map((id) => [id, entry(r.document(userId, id), true)])),
      })),
    ));
  const profiles = await deps.storage.users.findMany(scope, userIds);
  const out: Record<string, UserPermissions> = keyed();
  userIds.forEach((userId, i) => {
    const permissions: UserPermissions = decided[i] as UserPermissions;
    const context = contextAccessOfUser(profiles.get(userId));
    const accessFields = [...context].flatMap(([key, values]) => values.map((value) => `${key}:${value}`));
    if (accessFields.length > 0) permissions.context = { accessFields };
    out[userId] = permissions;
  });
  return out;
}

/** What signing and verifying user tokens need: the master key's derivations. */
type Signing = { secrets: Secrets };

const signingKey = (deps: Signing, apiKeyId: string) => new Uint8Array(deps.secrets.derive(`jwt:${apiKeyId}`));

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
  deps: Deps & Signing & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: {
    userId: string;
    userProperties?: { isAdmin?: boolean | undefined; name?: string | undefined; email?: string | undefined } | undefined;
    permissions?: PermissionsInput | undefined;
  },
  organizationId?: string,
): Promise<string> {
  const resources = input.permissions?.resources ?? [];
  await deps.storage.transaction(async () => {
    await upsertUser(deps, scope, { userId: input.userId, name: input.userProperties?.name, email: input.userProperties?.email });
    await changePermissions(deps, scope, input.userId, resources, 'add');
    if (input.permissions?.context) await changeContextAccess(deps, scope, input.userId, input.permissions.context, 'add');
  }, ROW_LEVEL);
  if (resources.length > 0) deps.accessEvents.publish({ apiKeyId: scope.apiKeyId, userIds: [input.userId] });
  const claims: UserTokenClaims = { apiKey: scope.apiKeyId, userId: input.userId };
  if (input.userProperties?.name !== undefined) claims.name = input.userProperties.name;
  if (input.userProperties?.email !== undefined) claims.email = input.userProperties.email;
  if (input.userProperties?.isAdmin !== undefined) claims.isAdmin = input.userProperties.isAdmin;
  if (resources.length > 0) claims.resources = resources;
  if (organizationId !== undefined) claims.organizationId = organizationId;
  const issuedAt = Math.floor(currentTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.userId)
    .setIssuer(ISSUER)
    .setAudience(scope.apiKeyId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_S)
    .sign(signingKey(deps, scope.apiKeyId));
}

/**
 * The legacy /v1/auth/token/get: generate_token's token for a user who belongs to `userProperties.organizationId`.
 * A user not yet in that organization joins it as generate_token's organization resource joins one (editor, the
 * organization created when missing); an existing membership keeps its role, so asking for a token never changes
 * what the user may do.
 */
export async function legacyUserToken(
  deps: Deps & Signing & { accessEvents: AccessEvents },
  scope: TenantScope,
  input: {
    userId: string;
    userProperties?: { organizationId?: string | undefined; isAdmin?: boolean | undefined; name?: string | undefined; email?: string | undefined } | undefined;
  },
): Promise<string> {
  const { organizationId, ...userProperties } = input.userProperties ?? {};
  const member =
    organizationId !== undefined &&
    (await deps.storage.memberships.find(scope, { organizationId, level: 'organization', resourceId: organizationId, userId: input.userId }));
  const resources: PermissionResource[] = organizationId !== undefined && !member ? [{ type: 'organization', id: organizationId }] : [];
  return generateUserToken(deps, scope, { userId: input.userId, userProperties, permissions: { resources } }, organizationId);
}

/** The claims of a token made by generateUserToken for this API key, or null (bad signature, expired, other key). */
export async function verifyUserToken(deps: Signing, apiKeyId: string, token: string): Promise<UserTokenClaims | null> {
  try {
    const { payload } = await jwtVerify<UserTokenClaims>(token, signingKey(deps, apiKeyId), {
      issuer: ISSUER,
      audience: apiKeyId,
      algorithms: ['HS256'],
      currentDate: currentDate(),
    });
    return payload.apiKey === apiKeyId ? payload : null;
  } catch {
    return null;
  }
}
