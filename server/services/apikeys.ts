import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  AI_PROVIDERS,
  type AiProvider,
  type apiKeyConfigUpdateInput,
  type ApiKeyCreateInput,
  type emailConfigUpdateInput,
  type ApiKeySettings,
  type apiKeysGetInput,
  type NotificationTrigger,
} from '../../shared/schemas/apikey.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { preparedFor } from '../db/prepared.ts';
import { tenantScope, type TenantScope } from '../db/scope.ts';
import { apiKeys, apiKeySecrets, authTokens, workspaces } from '../db/schema.ts';
import { failedPrecondition, invalid, notFound, permissionDenied, resourceExhausted } from '../errors.ts';
import { constantTimeEqual, randomAlphanumeric } from '../security/secrets.ts';
import { supportedRegions } from './resources.ts';
import type { ApiKeyRow, WorkspaceRow } from './types.ts';
import { readPageToken } from './paging.ts';

export const DEFAULT_AUTH_TOKEN_NAME = 'Default Auth Token';

/** Seeded by `setDefaultNotificationTriggers`: which events notify in-app. Consumed by the notifications area. */
export const DEFAULT_NOTIFICATION_TRIGGERS = { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true } satisfies Record<NotificationTrigger, boolean>;
/** Seeded by `setDefaultEmailTriggers`: which events send e-mail. */
export const DEFAULT_EMAIL_TRIGGERS = { mention: true, reply: true, comment: false, statusChange: false };

const SECRET = {
  emailApiKey: 'email:apiKey',
  webhookAuthToken: 'webhook:authToken',
  permissionProviderAuthToken: 'permissionProvider:authToken',
  ai: (provider: AiProvider) => `ai:${provider}`,
} as const;

export const PERMISSION_PROVIDER_SECRET = SECRET.permissionProviderAuthToken;

export function defaultSettings(): ApiKeySettings {
  return {
    useEmailService: false,
    useWebhookService: false,
    useNotificationService: false,
    requireAutoOrgUser: false,
    enablePrivateComments: false,
    requireJwtToken: false,
    defaultDocumentAccessType: 'public',
    emailServiceConfig: { type: 'default' },
    webhookServiceConfig: {},
    notificationTriggers: null,
    emailTriggers: null,
    aiProviders: {},
  };
}

function checkRegions(input: Pick<ApiKeyCreateInput, 'type' | 'persistenceDBRegion' | 'realtimeDBRegion'>) {
  const regions = supportedRegions();
  if (input.persistenceDBRegion !== undefined) {
    if (input.type !== 'production') throw invalid('persistenceDBRegion is only supported for production API keys.');
    if (!regions.persistence.has(input.persistenceDBRegion)) {
      throw invalid(`Unsupported region for persistenceDBRegion: "${input.persistenceDBRegion}".`);
    }
  }
  if (input.realtimeDBRegion !== undefined && !regions.realtime.has(input.realtimeDBRegion)) {
    throw invalid(`Unsupported region for realtimeDBRegion: "${input.realtimeDBRegion}".`);
  }
}

function checkWebhookUrls(config: ApiKeyCreateInput['webhookServiceConfig']) {
  for (const url of [config?.rawNotificationUrl, config?.processedNotificationUrl]) {
    if (!url) continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalid('Invalid webhook service configuration.');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('Invalid webhook service configuration.');
  }
}

/** Inserts the key row and its secret settings; no rules (the bootstrap and workspace creation use it too). */
export function insertApiKey(app: AppContext, tx: Db, workspaceId: string, input: ApiKeyCreateInput): ApiKeyRow {
  const settings = defaultSettings();
  settings.useEmailService = input.useEmailService ?? false;
  settings.useWebhookService = input.useWebhookService ?? false;
  settings.useNotificationService = input.useNotificationService ?? false;
  settings.requireAutoOrgUser = input.requireAutoOrgUser ?? false;
  settings.enablePrivateComments = input.enablePrivateComments ?? false;
  if (input.setDefaultNotificationTriggers) settings.notificationTriggers = { ...DEFAULT_NOTIFICATION_TRIGGERS };
  if (input.setDefaultEmailTriggers) settings.emailTriggers = { ...DEFAULT_EMAIL_TRIGGERS };
  if (input.emailServiceConfig) {
    const { apiKey: _secret, type, ...rest } = input.emailServiceConfig;
    settings.emailServiceConfig = { ...rest, type: type === 'sendgrid' || type === 'thirdparty' ? 'thirdparty' : 'default' };
  }
  if (input.webhookServiceConfig) {
    const { authToken: _secret, ...rest } = input.webhookServiceConfig;
    settings.webhookServiceConfig = rest;
  }
  const domains = new Set(input.allowedDomains ?? []);
  if (input.addLocalHostToAllowedDomains) domains.add('localhost');
  const now = Date.now();
  const row = {
    id: randomAlphanumeric(20),
    workspaceId,
    name: input.apiKeyName ?? (input.type === 'production' ? 'Production API Key' : 'Test API Key'),
    type: input.type,
    ownerEmail: input.ownerEmail.toLowerCase(),
    persistenceRegion: input.persistenceDBRegion ?? null,
    realtimeRegion: input.realtimeDBRegion ?? null,
    allowedDomains: [...domains],
    settings,
    disabled: false, disabledAt: null,
    createdAt: now,
    updatedAt: now,
  } satisfies ApiKeyRow;
  tx.insert(apiKeys).values(row).run();
  if (input.emailServiceConfig?.apiKey) setSecret(app, tx, row.id, SECRET.emailApiKey, input.emailServiceConfig.apiKey);
  if (input.webhookServiceConfig?.authToken) setSecret(app, tx, row.id, SECRET.webhookAuthToken, input.webhookServiceConfig.authToken);
  return row;
}

/** /v2/workspace/apikey/create, with the workspace's plan and production-key rules (interface.md rules 1-4). */
export function createApiKey(app: AppContext, workspace: WorkspaceRow, input: ApiKeyCreateInput): ApiKeyRow {
  checkRegions(input);
  checkWebhookUrls(input.webhookServiceConfig);
  return transaction(app.db, (tx) => {
    if (input.type === 'production') {
      // Read the settings inside the transaction: an operator may change them while the server runs.
      const current = tx.select().from(workspaces).where(eq(workspaces.id, workspace.id)).get() ?? workspace;
      if (!current.selfServeProduction) {
        throw permissionDenied('This workspace is not enabled for self-serve production API keys.');
      }
      if (current.plan !== 'paid') throw failedPrecondition('Production API keys require a workspace on a paid plan.');
      const existing = tx
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.workspaceId, workspace.id), eq(apiKeys.type, 'production')))
        .get();
      if ((existing?.n ?? 0) >= current.maxProductionKeys) {
        throw resourceExhausted(
          `This workspace has reached its maximum of ${current.maxProductionKeys} production API keys.`,
        );
      }
    }
    const row = insertApiKey(app, tx, workspace.id, input);
    if (input.createAuthToken ?? true) issueAuthToken(app, tx, row.id);
    return row;
  });
}

/** A new auth token for the key; returns its plaintext (the only time it exists outside the ciphertext). */
export function issueAuthToken(app: AppContext, tx: Db, apiKeyId: string, name = DEFAULT_AUTH_TOKEN_NAME, domains: string[] = []) {
  const token = `yauth_${randomAlphanumeric(40)}`;
  tx.insert(authTokens)
    .values({
      id: randomAlphanumeric(16),
      apiKeyId,
      name,
      domains,
      tokenEnc: app.secrets.encrypt(token),
      tokenDigest: app.secrets.digest(token),
      createdAt: Date.now(),
    })
    .run();
  return token;
}

/** The workspace's own key, or NOT_FOUND (a key of another workspace is as unknown as a missing one). */
export function findWorkspaceKey(app: AppContext, workspace: WorkspaceRow, apiKeyId: string): ApiKeyRow {
  const row = app.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.workspaceId, workspace.id)))
    .get();
  if (!row) throw notFound('API key not found.');
  return row;
}

export function listAuthTokens(app: AppContext, apiKeyId: string) {
  return app.db
    .select()
    .from(authTokens)
    .where(eq(authTokens.apiKeyId, apiKeyId))
    .orderBy(asc(authTokens.createdAt), asc(authTokens.id))
    .all()
    .map((t) => ({ token: app.secrets.decrypt(t.tokenEnc), name: t.name, domains: t.domains }));
}

/** Replaces one token (the default one unless named) with a new value; the old value stops working at once. */
export function resetAuthToken(app: AppContext, apiKey: ApiKeyRow, which?: string) {
  const answer = transaction(app.db, (tx) => {
    const tokens = tx
      .select()
      .from(authTokens)
      .where(eq(authTokens.apiKeyId, apiKey.id))
      .orderBy(asc(authTokens.createdAt), asc(authTokens.id))
      .all();
    const target = which
      ? tokens.find((t) => constantTimeEqual(t.tokenDigest, app.secrets.digest(which)))
      : (tokens.find((t) => t.name === DEFAULT_AUTH_TOKEN_NAME) ?? tokens[0]);
    if (which && !target) throw notFound('Auth token not found.');
    if (target) tx.delete(authTokens).where(eq(authTokens.id, target.id)).run();
    const token = issueAuthToken(app, tx, apiKey.id, target?.name ?? DEFAULT_AUTH_TOKEN_NAME, target?.domains ?? []);
    return { token, name: target?.name ?? DEFAULT_AUTH_TOKEN_NAME, domains: target?.domains ?? [] };
  });
  // connections opened with the old value are closed
  app.accessEvents.publish({ apiKeyId: apiKey.id });
  return answer;
}

export function renameApiKey(app: AppContext, apiKey: ApiKeyRow, name: string) {
  app.db.update(apiKeys).set({ name, updatedAt: Date.now() }).where(eq(apiKeys.id, apiKey.id)).run();
}

/** /v2/workspace/apikeys/get: the workspace's keys, oldest first, keyset-paginated. */
export function listApiKeys(app: AppContext, workspace: WorkspaceRow, input: z.output<typeof apiKeysGetInput>) {
  const scope = { op: 'workspace/apikeys/get', workspace: workspace.id, apiKeys: input.apiKeys ?? null };
  const conditions: SQL[] = [eq(apiKeys.workspaceId, workspace.id)];
  if (input.apiKeys) conditions.push(inArray(apiKeys.id, input.apiKeys));
  const after = keysetAfter(apiKeys.createdAt, apiKeys.id, readPageToken(app, scope, input.pageToken, ['number', 'string']), false);
  if (after) conditions.push(after);
  const rows = app.db
    .select()
    .from(apiKeys)
    .where(and(...conditions))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .limit(input.pageSize + 1)
    .all();
  const page = paginate(rows, input.pageSize, (r) => [r.createdAt, r.id], app.pageTokens, scope);
  return { items: page.items.map(describeApiKey), pageToken: page.pageToken };
}

export function describeApiKey(row: ApiKeyRow) {
  return {
    apiKey: row.id,
    apiKeyName: row.name,
    type: row.type,
    ownerEmail: row.ownerEmail,
    persistenceDBRegion: row.persistenceRegion,
    realtimeDBRegion: row.realtimeRegion,
    allowedDomains: row.allowedDomains,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const authQueries = preparedFor((db) => ({
  key: db.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder('id'))).prepare(),
  token: db
    .select({ digest: authTokens.tokenDigest })
    .from(authTokens)
    .where(and(eq(authTokens.apiKeyId, sql.placeholder('apiKeyId')), eq(authTokens.tokenDigest, sql.placeholder('digest'))))
    .prepare(),
  secretNames: db.select({ name: apiKeySecrets.name }).from(apiKeySecrets).where(eq(apiKeySecrets.apiKeyId, sql.placeholder('apiKeyId'))).prepare(),
}));

/** What every caller of a disabled key is told (operations, websocket upgrades and their connections). */
export const API_KEY_DISABLED = "This API key is disabled by its workspace's admin; enable it again in the admin UI (Workspace, the key's page).";

/** Set B: the API key whose id and one of whose auth tokens were presented, or PERMISSION_DENIED (a disabled key too, once its token is right). */
export function authenticateApiKey(app: AppContext, apiKeyId: string, authToken: string): ApiKeyRow {
  const queries = authQueries(app.db);
  const row = queries.key.get({ id: apiKeyId });
  if (!row) throw permissionDenied('Invalid API key.');
  const digest = app.secrets.digest(authToken);
  const token = queries.token.get({ apiKeyId: row.id, digest });
  if (!token || !constantTimeEqual(token.digest, digest)) throw permissionDenied('Invalid auth token for this API key.');
  if (row.disabled) throw permissionDenied(API_KEY_DISABLED);
  return row;
}

/** authenticateApiKey with the scope the key's credentials reach (the legacy token/get authenticates in its body). */
export function authenticateApiKeyScope(app: AppContext, apiKeyId: string, authToken: string): { apiKey: ApiKeyRow; scope: TenantScope } {
  const apiKey = authenticateApiKey(app, apiKeyId, authToken);
  return { apiKey, scope: tenantScope(apiKey.id, apiKey.workspaceId) };
}

/** Whether the key is disabled now (for credentials that are not its auth tokens: user tokens it signed). */
export function apiKeyDisabled(app: AppContext, apiKeyId: string): boolean {
  return authQueries(app.db).key.get({ id: apiKeyId })?.disabled === true;
}

export function setSecret(app: AppContext, tx: Db, apiKeyId: string, name: string, value: string) {
  const valueEnc = app.secrets.encrypt(value);
  tx.insert(apiKeySecrets)
    .values({ apiKeyId, name, valueEnc, updatedAt: Date.now() })
    .onConflictDoUpdate({ target: [apiKeySecrets.apiKeyId, apiKeySecrets.name], set: { valueEnc, updatedAt: Date.now() } })
    .run();
}

export function deleteSecret(tx: Db, apiKeyId: string, name: string) {
  tx.delete(apiKeySecrets).where(and(eq(apiKeySecrets.apiKeyId, apiKeyId), eq(apiKeySecrets.name, name))).run();
}

/** A decrypted secret of the key, for server-side use only (never returned by an operation). */
export function getSecret(app: AppContext, apiKeyId: string, name: string): string | undefined {
  const row = app.db
    .select({ valueEnc: apiKeySecrets.valueEnc })
    .from(apiKeySecrets)
    .where(and(eq(apiKeySecrets.apiKeyId, apiKeyId), eq(apiKeySecrets.name, name)))
    .get();
  return row ? app.secrets.decrypt(row.valueEnc) : undefined;
}

export const aiProviderSecretName = SECRET.ai;

function secretNames(app: AppContext, apiKeyId: string): Set<string> {
  return new Set(authQueries(app.db).secretNames.all({ apiKeyId }).map((r) => r.name));
}

/**
 * Changes the key's settings in one transaction, on the row as it is stored then (not as the request's
 * authentication read it: a concurrent update of another section of the settings is kept), and answers the row.
 */
export function updateSettings(app: AppContext, apiKeyId: string, change: (settings: ApiKeySettings, tx: Db) => void): ApiKeyRow {
  return transaction(app.db, (tx) => {
    const row = tx.select().from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get();
    if (!row) throw notFound('API key not found.');
    const settings: ApiKeySettings = structuredClone(row.settings);
    change(settings, tx);
    const updatedAt = Date.now();
    tx.update(apiKeys).set({ settings, updatedAt }).where(eq(apiKeys.id, apiKeyId)).run();
    return { ...row, settings, updatedAt };
  });
}

/**
 * The key's activity service: on unless turned off with activityconfig/update (keys from before that operation,
 * and new keys, have no stored value); `enabledTime` then defaults to the key's creation.
 */
export function activityServiceOf(row: Pick<ApiKeyRow, 'settings' | 'createdAt'>): { isEnabled: boolean; enabledTime: number | null } {
  return row.settings.activityServiceConfig ?? { isEnabled: true, enabledTime: row.createdAt };
}

/** Whether activities/add is accepted for the key, read in the caller's transaction. */
export function activityServiceEnabled(tx: Db, apiKeyId: string): boolean {
  const row = tx.select({ settings: apiKeys.settings, createdAt: apiKeys.createdAt }).from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get();
  return row ? activityServiceOf(row).isEnabled : false;
}

/** The key's permission provider settings, off and empty when never set. */
export function permissionProviderOf(settings: ApiKeySettings): { usePermissionProvider: boolean; permissionProviderUrl: string } {
  return { usePermissionProvider: settings.usePermissionProvider ?? false, permissionProviderUrl: settings.permissionProviderConfig?.permissionProviderUrl ?? '' };
}

/** /v2/workspace/notificationconfig/get: the settings apikey/create's useNotificationService and setDefaultNotificationTriggers set. */
export function describeNotificationConfig(row: ApiKeyRow) {
  return { useNotificationService: row.settings.useNotificationService, notificationServiceConfig: { triggers: { ...row.settings.notificationTriggers } } };
}

/** /v2/workspace/activityconfig/get. */
export function describeActivityConfig(row: ApiKeyRow) {
  return { activityServiceConfig: activityServiceOf(row) };
}

/** /v2/workspace/permissionproviderconfig/get: the auth token only as `authTokenConfigured`. */
export function describePermissionProviderConfig(app: AppContext, row: ApiKeyRow, secrets = secretNames(app, row.id)) {
  const { usePermissionProvider, permissionProviderUrl } = permissionProviderOf(row.settings);
  return { usePermissionProvider, permissionProviderConfig: { permissionProviderUrl, authTokenConfigured: secrets.has(SECRET.permissionProviderAuthToken) } };
}

/** /v2/workspace/apikeyconfig/get: the key's settings; secrets appear only as `configured` flags. */
export function describeApiKeyConfig(app: AppContext, row: ApiKeyRow) {
  const secrets = secretNames(app, row.id);
  const s = row.settings;
  return {
    ...describeApiKey(row),
    useEmailService: s.useEmailService,
    useWebhookService: s.useWebhookService,
    useNotificationService: s.useNotificationService,
    requireAutoOrgUser: s.requireAutoOrgUser,
    enablePrivateComments: s.enablePrivateComments,
    requireJwtToken: s.requireJwtToken,
    defaultDocumentAccessType: s.defaultDocumentAccessType,
    emailServiceConfig: { ...s.emailServiceConfig, apiKeyConfigured: secrets.has(SECRET.emailApiKey) },
    webhookServiceConfig: { ...s.webhookServiceConfig, authTokenConfigured: secrets.has(SECRET.webhookAuthToken) },
    notificationTriggers: s.notificationTriggers,
    emailTriggers: s.emailTriggers,
    ...describeActivityConfig(row),
    ...describePermissionProviderConfig(app, row, secrets),
    aiModelApiKey: AI_PROVIDERS.filter((p) => secrets.has(SECRET.ai(p)) || s.aiProviders[p]).map((provider) => ({
      provider,
      configured: secrets.has(SECRET.ai(provider)),
      baseUrl: s.aiProviders[provider]?.baseUrl ?? null,
    })),
  };
}

/** /v2/workspace/emailconfig/get: whether notifications are mailed, and how (the provider key only as a flag). */
export function describeEmailConfig(app: AppContext, row: ApiKeyRow) {
  const { useEmailService, emailServiceConfig } = describeApiKeyConfig(app, row);
  return { useEmailService, emailServiceConfig };
}

/** /v2/workspace/emailconfig/update: turns the key's notification mail on or off and sets its sender and provider. */
export function updateEmailConfig(app: AppContext, row: ApiKeyRow, input: z.output<typeof emailConfigUpdateInput>): ApiKeyRow {
  if (input.useEmailService === undefined && input.emailServiceConfig === undefined) throw invalid('At least one of useEmailService or emailServiceConfig must be provided');
  return updateSettings(app, row.id, (settings, tx) => {
    if (input.useEmailService !== undefined) settings.useEmailService = input.useEmailService;
    const { apiKey, type, ...fields } = input.emailServiceConfig ?? {};
    const config: Record<string, string | undefined> = { ...settings.emailServiceConfig };
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) config[name] = value === '' ? undefined : value;
    if (type !== undefined) config.type = type === 'default' ? 'default' : 'thirdparty';
    settings.emailServiceConfig = JSON.parse(JSON.stringify(config)) as ApiKeySettings['emailServiceConfig'];
    if (apiKey === '') deleteSecret(tx, row.id, SECRET.emailApiKey);
    else if (apiKey !== undefined) setSecret(app, tx, row.id, SECRET.emailApiKey, apiKey);
  });
}

/** The From of the key's notification mail: `fromCompany <fromEmail>` when it has a sender, else the server's. */
export function mailSender(row: ApiKeyRow): { name: string; address: string } | undefined {
  const { fromEmail, fromCompany } = row.settings.emailServiceConfig;
  return fromEmail ? { name: fromCompany ?? '', address: fromEmail } : undefined;
}

/** /v2/workspace/apikeyconfig/update: partial update of the key's settings and AI provider keys. */
export function updateApiKeyConfig(app: AppContext, row: ApiKeyRow, input: z.output<typeof apiKeyConfigUpdateInput>): ApiKeyRow {
  const given = Object.values(input).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (!given) throw invalid('At least one field must be provided for update');
  const providers = input.aiModelApiKey?.map((e) => e.provider) ?? [];
  if (new Set(providers).size !== providers.length) throw invalid('aiModelApiKey lists a provider more than once.');
  return updateSettings(app, row.id, (settings, tx) => {
    if (input.enablePrivateComments !== undefined) settings.enablePrivateComments = input.enablePrivateComments;
    if (input.requireJwtToken !== undefined) settings.requireJwtToken = input.requireJwtToken;
    if (input.requireAutoOrgUser !== undefined) settings.requireAutoOrgUser = input.requireAutoOrgUser;
    if (input.defaultDocumentAccessType !== undefined) settings.defaultDocumentAccessType = input.defaultDocumentAccessType;
    for (const entry of input.aiModelApiKey ?? []) {
      const name = SECRET.ai(entry.provider);
      if (entry.customerApiKey === '') {
        deleteSecret(tx, row.id, name);
      } else {
        setSecret(app, tx, row.id, name, entry.customerApiKey);
      }
      if (entry.baseUrl !== undefined) settings.aiProviders[entry.provider] = { baseUrl: entry.baseUrl };
    }
  });
}
