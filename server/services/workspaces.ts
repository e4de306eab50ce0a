import { currentTime } from '../clock.ts';
import type { WORKSPACE_PLANS } from '../../shared/schemas/workspace.ts';
import type { Storage } from '../db/repos/index.ts';
import type { WorkspaceScope } from '../db/scope.ts';
import { alreadyExists, invalid, notFound, permissionDenied, resourceExhausted } from '../errors.ts';
import type { Secrets } from '../security/secrets.ts';
import { constantTimeEqual, randomAlphanumeric, randomHex } from '../security/secrets.ts';
import { insertApiKey, issueAuthToken } from './apikeys.ts';
import { isDisposableEmail } from './resources.ts';
import type { WorkspaceRow } from './types.ts';

/** What the workspace service uses: storage, and the secrets its auth tokens are sealed and digested with. */
export type WorkspaceDeps = { storage: Storage; secrets: Secrets };

export const MAX_WORKSPACES_PER_EMAIL = 5;

export interface WorkspaceSettings {
  plan: (typeof WORKSPACE_PLANS)[number];
  selfServeProduction: boolean;
  maxProductionKeys: number;
}

/** The default workspace made at first start may do everything a paying customer may. */
export const DEFAULT_WORKSPACE_SETTINGS: WorkspaceSettings = { plan: 'paid', selfServeProduction: true, maxProductionKeys: 3 };
/** Workspaces made through /v2/workspace/create start like the hosted free tier. */
export const NEW_WORKSPACE_SETTINGS: WorkspaceSettings = { plan: 'free', selfServeProduction: false, maxProductionKeys: 0 };

export interface NewWorkspace {
  ownerEmail: string;
  name?: string | undefined;
  workspaceName?: string | undefined;
  avatar?: string | undefined;
}

/** `owner@x.com` → `Owner Test API Key`, as the hosted service names the first key. */
export function defaultKeyName(ownerEmail: string): string {
  const local = ownerEmail.slice(0, ownerEmail.indexOf('@'));
  return `${local.charAt(0).toUpperCase()}${local.slice(1)} Test API Key`;
}

/**
 * Creates a workspace with its default testing API key and that key's auth token, in the caller's unit of work
 * (or one of its own). The caller has already applied the public rules (see `createWorkspaceForOwner`).
 */
export function insertWorkspace(deps: WorkspaceDeps, input: NewWorkspace, settings: WorkspaceSettings, isDefault = false) {
  const authToken = randomHex(16);
  const row = newWorkspaceRow(deps, input, settings, { id: `workspace_${randomAlphanumeric(20)}`, authToken, isDefault });
  const insert = async () => {
    const scope = await deps.storage.workspaces.insert(row);
    const apiKey = await insertApiKey(deps, scope, { ownerEmail: input.ownerEmail, type: 'testing', apiKeyName: defaultKeyName(input.ownerEmail) });
    const token = await issueAuthToken(deps, apiKey.scope);
    return { workspaceId: row.id, scope, authToken, apiKeyId: apiKey.row.id, apiKeyAuthToken: token };
  };
  return deps.storage.inTransaction() ? insert() : deps.storage.transaction(insert);
}

/**
 * A workspace's row with the given id and auth token (sealed and digested), no keys: insertWorkspace's, and the
 * fixtures loader's (server/testing/fixtures.ts), whose workspaces have fixed ids and tokens.
 */
export function newWorkspaceRow(
  deps: Pick<WorkspaceDeps, 'secrets'>,
  input: NewWorkspace,
  settings: WorkspaceSettings,
  fixed: { id: string; authToken: string; isDefault?: boolean },
) {
  const ownerName = input.name ?? '';
  return {
    id: fixed.id,
    name: input.workspaceName ?? (ownerName ? `${ownerName} workspace` : `${input.ownerEmail} workspace`),
    ownerId: randomHex(16),
    ownerEmail: input.ownerEmail,
    ownerName,
    ownerAvatar: input.avatar ?? '',
    authTokenEnc: deps.secrets.encrypt(fixed.authToken),
    authTokenDigest: deps.secrets.digest(fixed.authToken),
    plan: settings.plan,
    selfServeProduction: settings.selfServeProduction,
    maxProductionKeys: settings.maxProductionKeys,
    isDefault: fixed.isDefault ?? false,
    createdAt: currentTime(),
  };
}

/** /v2/workspace/create: the hosted rules for who may open another workspace. */
export async function createWorkspaceForOwner(deps: WorkspaceDeps, input: NewWorkspace): Promise<WorkspaceRow> {
  const ownerEmail = input.ownerEmail.toLowerCase();
  if (isDisposableEmail(ownerEmail)) throw invalid('This email domain is not supported.');
  return deps.storage.transaction(async () => {
    const owned = await deps.storage.workspaces.ownedBy(ownerEmail);
    const root = owned[0];
    if (root) {
      if (owned.length >= MAX_WORKSPACES_PER_EMAIL) {
        throw resourceExhausted('You have reached the maximum number of workspaces allowed for this email address.');
      }
      if (root.plan !== 'paid') {
        throw permissionDenied('Creating an additional workspace requires your root workspace to be on a paid plan (a production API key).');
      }
      const name = input.workspaceName ?? (input.name ? `${input.name} workspace` : `${ownerEmail} workspace`);
      if (owned.some((w) => w.name === name)) throw alreadyExists('A workspace already exists for this email address');
    }
    const created = await insertWorkspace(deps, { ...input, ownerEmail }, NEW_WORKSPACE_SETTINGS);
    return (await deps.storage.workspaces.find(created.scope)) as WorkspaceRow;
  });
}

/** A workspace whose credentials were verified, and the scope they reach. */
export interface VerifiedWorkspace {
  workspace: WorkspaceRow;
  scope: WorkspaceScope;
}

/** Set A: the workspace whose id and auth token were presented, or PERMISSION_DENIED. */
export async function authenticateWorkspace(deps: WorkspaceDeps, workspaceId: string, authToken: string): Promise<VerifiedWorkspace> {
  const row = await deps.storage.workspaces.forCredentials(workspaceId);
  const presented = deps.secrets.digest(authToken);
  // Compare even when the workspace is unknown, so both failures take the same time.
  const matches = constantTimeEqual(presented, row?.authTokenDigest ?? deps.secrets.digest(`unknown:${authToken}`));
  if (!row || !matches) throw permissionDenied('Invalid workspace credentials.');
  return { workspace: row, scope: deps.storage.workspaces.scopeOf(row) };
}

/**
 * Replaces the workspace's auth token with a new random one and answers it. The old value is refused by the next
 * call on every instance: the credentials caches drop what they verified whenever the workspaces table is written
 * (this process's writes at once; other processes' and instances' through the change stamp or PostgreSQL's change
 * notifications, http/credentials.ts). Admin UI sessions already signed in stay signed in.
 */
export async function rotateWorkspaceAuthToken(deps: WorkspaceDeps, scope: WorkspaceScope): Promise<string> {
  const authToken = randomHex(16);
  const changed = await deps.storage.workspaces.setAuthToken(scope, {
    authTokenEnc: deps.secrets.encrypt(authToken),
    authTokenDigest: deps.secrets.digest(authToken),
  });
  if (!changed) throw notFound(`No workspace ${scope.workspaceId}`);
  return authToken;
}

/** The hosted create/get shape: `{ id, name, owner, authToken, apiKeyList }`. */
export async function describeWorkspace(deps: WorkspaceDeps, workspace: WorkspaceRow) {
  const keys = await deps.storage.keys.listInWorkspace(deps.storage.workspaces.scopeOf(workspace));
  return {
    id: workspace.id,
    name: workspace.name,
    owner: { email: workspace.ownerEmail, id: workspace.ownerId, name: workspace.ownerName, avatar: workspace.ownerAvatar },
    authToken: deps.secrets.decrypt(workspace.authTokenEnc),
    apiKeyList: Object.fromEntries(keys.map((k) => [k.id, { apiKeyName: k.name, id: k.id, type: k.type }])),
    plan: workspace.plan,
    createdAt: workspace.createdAt,
  };
}

/** The operator's lookup by id (CLI, admin sign-in): the workspace and its scope, or undefined. */
export async function findWorkspace(deps: { storage: Storage }, workspaceId: string): Promise<VerifiedWorkspace | undefined> {
  const row = await deps.storage.workspaces.forCredentials(workspaceId);
  return row ? { workspace: row, scope: deps.storage.workspaces.scopeOf(row) } : undefined;
}

export function listWorkspaces(deps: { storage: Storage }): Promise<WorkspaceRow[]> {
  return deps.storage.workspaces.list();
}

/** Plan and production-key settings; the operator changes them with `hearth workspace settings`. */
export async function updateWorkspaceSettings(deps: { storage: Storage }, scope: WorkspaceScope, settings: Partial<WorkspaceSettings>): Promise<WorkspaceRow> {
  const changes = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  return deps.storage.transaction(async () => {
    if (Object.keys(changes).length > 0) await deps.storage.workspaces.updateSettings(scope, changes);
    const row = await deps.storage.workspaces.find(scope);
    if (!row) throw notFound(`No workspace ${scope.workspaceId}`);
    return row;
  });
}

/** A workspace's plan and production-key settings, as the CLI and the admin UI show them. */
export function describeSettings(w: WorkspaceRow) {
  return {
    workspaceId: w.id,
    name: w.name,
    ownerEmail: w.ownerEmail,
    plan: w.plan,
    selfServeProduction: w.selfServeProduction,
    maxProductionKeys: w.maxProductionKeys,
    isDefault: w.isDefault,
  };
}

export function findDefaultWorkspace(deps: { storage: Storage }): Promise<WorkspaceRow | undefined> {
  return deps.storage.workspaces.findDefault();
}
