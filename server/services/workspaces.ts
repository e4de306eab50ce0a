import { and, asc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { preparedFor } from '../db/prepared.ts';
import { apiKeys, workspaces } from '../db/schema.ts';
import { alreadyExists, invalid, permissionDenied, resourceExhausted } from '../errors.ts';
import { constantTimeEqual, randomAlphanumeric, randomHex } from '../security/secrets.ts';
import { insertApiKey, issueAuthToken } from './apikeys.ts';
import { isDisposableEmail } from './resources.ts';
import type { WorkspaceRow } from './types.ts';

export const MAX_WORKSPACES_PER_EMAIL = 5;

export interface WorkspaceSettings {
  plan: 'free' | 'paid';
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
 * Creates a workspace with its default testing API key and that key's auth token, in one transaction.
 * The caller has already applied the public rules (see `createWorkspaceForOwner`).
 */
export function insertWorkspace(app: AppContext, tx: Db, input: NewWorkspace, settings: WorkspaceSettings, isDefault = false) {
  const authToken = randomHex(16);
  const ownerName = input.name ?? '';
  const row = {
    id: `workspace_${randomAlphanumeric(20)}`,
    name: input.workspaceName ?? (ownerName ? `${ownerName} workspace` : `${input.ownerEmail} workspace`),
    ownerId: randomHex(16),
    ownerEmail: input.ownerEmail,
    ownerName,
    ownerAvatar: input.avatar ?? '',
    authTokenEnc: app.secrets.encrypt(authToken),
    authTokenDigest: app.secrets.digest(authToken),
    plan: settings.plan,
    selfServeProduction: settings.selfServeProduction,
    maxProductionKeys: settings.maxProductionKeys,
    isDefault,
    createdAt: Date.now(),
  } satisfies typeof workspaces.$inferInsert;
  tx.insert(workspaces).values(row).run();
  const apiKey = insertApiKey(app, tx, row.id, {
    ownerEmail: input.ownerEmail,
    type: 'testing',
    apiKeyName: defaultKeyName(input.ownerEmail),
  });
  const token = issueAuthToken(app, tx, apiKey.id);
  return { workspaceId: row.id, authToken, apiKeyId: apiKey.id, apiKeyAuthToken: token };
}

/** /v2/workspace/create: the hosted rules for who may open another workspace. */
export function createWorkspaceForOwner(app: AppContext, input: NewWorkspace) {
  const ownerEmail = input.ownerEmail.toLowerCase();
  if (isDisposableEmail(ownerEmail)) throw invalid('This email domain is not supported.');
  return transaction(app.db, (tx) => {
    const owned = tx
      .select()
      .from(workspaces)
      .where(eq(workspaces.ownerEmail, ownerEmail))
      .orderBy(asc(workspaces.createdAt))
      .all();
    const root = owned[0];
    if (root) {
      if (owned.length >= MAX_WORKSPACES_PER_EMAIL) {
        throw resourceExhausted('You have reached the maximum number of workspaces allowed for this email address.');
      }
      if (root.plan !== 'paid') {
        throw permissionDenied(
          'Creating an additional workspace requires your root workspace to be on a paid plan (a production API key).',
        );
      }
      const name = input.workspaceName ?? (input.name ? `${input.name} workspace` : `${ownerEmail} workspace`);
      if (owned.some((w) => w.name === name)) throw alreadyExists('A workspace already exists for this email address');
    }
    const created = insertWorkspace(app, tx, { ...input, ownerEmail }, NEW_WORKSPACE_SETTINGS);
    return tx.select().from(workspaces).where(eq(workspaces.id, created.workspaceId)).get() as WorkspaceRow;
  });
}

/** Set A: the workspace whose id and auth token were presented, or PERMISSION_DENIED. */
const byId = preparedFor((db) => db.select().from(workspaces).where(eq(workspaces.id, sql.placeholder('id'))).prepare());

export function authenticateWorkspace(app: AppContext, workspaceId: string, authToken: string): WorkspaceRow {
  const row = byId(app.db).get({ id: workspaceId });
  const presented = app.secrets.digest(authToken);
  // Compare even when the workspace is unknown, so both failures take the same time.
  const matches = constantTimeEqual(presented, row?.authTokenDigest ?? app.secrets.digest(`unknown:${authToken}`));
  if (!row || !matches) throw permissionDenied('Invalid workspace credentials.');
  return row;
}

/** The hosted create/get shape: `{ id, name, owner, authToken, apiKeyList }`. */
export function describeWorkspace(app: AppContext, workspace: WorkspaceRow) {
  const keys = app.db
    .select({ id: apiKeys.id, name: apiKeys.name, type: apiKeys.type })
    .from(apiKeys)
    .where(eq(apiKeys.workspaceId, workspace.id))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all();
  return {
    id: workspace.id,
    name: workspace.name,
    owner: { email: workspace.ownerEmail, id: workspace.ownerId, name: workspace.ownerName, avatar: workspace.ownerAvatar },
    authToken: app.secrets.decrypt(workspace.authTokenEnc),
    apiKeyList: Object.fromEntries(keys.map((k) => [k.id, { apiKeyName: k.name, id: k.id, type: k.type }])),
    plan: workspace.plan,
    createdAt: workspace.createdAt,
  };
}

export function findWorkspace(app: AppContext, workspaceId: string): WorkspaceRow | undefined {
  return app.db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
}

export function listWorkspaces(app: AppContext): WorkspaceRow[] {
  return app.db.select().from(workspaces).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).all();
}

/** Plan and production-key settings; the operator changes them with `hearth workspace settings`. */
export function updateWorkspaceSettings(app: AppContext, workspaceId: string, settings: Partial<WorkspaceSettings>): WorkspaceRow {
  const changes = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length > 0) {
    app.db.update(workspaces).set(changes).where(eq(workspaces.id, workspaceId)).run();
  }
  const row = findWorkspace(app, workspaceId);
  if (!row) throw new Error(`No workspace ${workspaceId}`);
  return row;
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

export function findDefaultWorkspace(app: AppContext): WorkspaceRow | undefined {
  return app.db.select().from(workspaces).where(and(eq(workspaces.isDefault, true))).get();
}

export function markEmailVerified(app: AppContext, tx: Db, email: string) {
  tx.update(workspaces).set({ emailVerified: true }).where(eq(workspaces.ownerEmail, email)).run();
}
