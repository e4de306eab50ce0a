import { currentTime } from '../clock.ts';
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
import { paginate, type PageTokens } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope, WorkspaceScope } from '../db/scope.ts';
import { ApiError, failedPrecondition, invalid, notFound, permissionDenied, resourceExhausted } from '../errors.ts';
import { constantTimeEqual, randomAlphanumeric, type Secrets } from '../security/secrets.ts';
import type { AccessEvents } from './access-events.ts';
import { supportedRegions } from './resources.ts';
import type { ApiKeyRow } from './types.ts';
import { readPageToken } from './paging.ts';

/** What the key services use: storage, and the secrets that encrypt tokens and digest them. */
export type KeyDeps = { storage: Storage; secrets: Secrets };

export const DEFAULT_AUTH_TOKEN_NAME = 'Default Auth Token';

/** Seeded by `setDefaultNotificationTriggers`: which events notify in-app. Consumed by the notifications area. */
export const DEFAULT_NOTIFICATION_TRIGGERS = { comment: true, reply: true, mention: true, statusChange: true, reaction: false, huddle: true } satisfies Record<
  NotificationTrigger,
  boolean
>;
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

/**
 * Inserts the key row and its secret settings; no rules (the bootstrap and workspace creation use it too). Joins the
 * caller's unit of work (or makes its statements one of their own each).
 */
export async function insertApiKey(
  deps: KeyDeps,
  workspace: WorkspaceScope,
  input: ApiKeyCreateInput,
  /** A fixed id (the fixtures loader's); a random one otherwise. */
  id = randomAlphanumeric(20),
): Promise<{ row: ApiKeyRow; scope: TenantScope }> {
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
  const now = currentTime();
  const fields = {
    id,
    name: input.apiKeyName ?? (input.type === 'production' ? 'Production API Key' : 'Test API Key'),
    type: input.type,
    ownerEmail: input.ownerEmail.toLowerCase(),
    persistenceRegion: input.persistenceDBRegion ?? null,
    realtimeRegion: input.realtimeDBRegion ?? null,
    allowedDomains: [...domains],
    settings,
    disabled: false,
    disabledAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const scope = await deps.storage.keys.insert(workspace, fields);
  if (input.emailServiceConfig?.apiKey) await setSecret(deps, scope, SECRET.emailApiKey, input.emailServiceConfig.apiKey);
  if (input.webhookServiceConfig?.authToken) await setSecret(deps, scope, SECRET.webhookAuthToken, input.webhookServiceConfig.authToken);
  return { row: { ...fields, workspaceId: workspace.workspaceId } satisfies ApiKeyRow, scope };
}

/** /v2/workspace/apikey/create, with the workspace's plan and production-key rules (interface.md rules 1-4). */
export async function createApiKey(deps: KeyDeps, workspace: WorkspaceScope, input: ApiKeyCreateInput): Promise<ApiKeyRow> {
  checkRegions(input);
  checkWebhookUrls(input.webhookServiceConfig);
  const { storage } = deps;
  return storage.transaction(async () => {
    if (input.type === 'production') {
      // Read the settings inside the unit of work: an operator may change them while the server runs.
      const current = await storage.workspaces.find(workspace);
      if (!current) throw notFound('Workspace not found.');
      if (!current.selfServeProduction) {
        throw permissionDenied('This workspace is not enabled for self-serve production API keys.');
      }
      if (current.plan !== 'paid') throw failedPrecondition('Production API keys require a workspace on a paid plan.');
      if ((await storage.keys.productionCount(workspace)) >= current.maxProductionKeys) {
        throw resourceExhausted(`This workspace has reached its maximum of ${current.maxProductionKeys} production API keys.`);
      }
    }
    const { row, scope } = await insertApiKey(deps, workspace, input);
    if (input.createAuthToken ?? true) await issueAuthToken(deps, scope);
    return row;
  });
}

/** A new auth token for the key; returns its plaintext (the only time it exists outside the ciphertext). */
export async function issueAuthToken(
  deps: KeyDeps,
  scope: TenantScope,
  name = DEFAULT_AUTH_TOKEN_NAME,
  domains: string[] = [],
  /** A fixed value (the fixtures loader's); a random one otherwise. */
  token = `yauth_${randomAlphanumeric(40)}`,
): Promise<string> {
  await deps.storage.keys.insertToken(scope, {
    id: randomAlphanumeric(16),
    name,
    domains,
    tokenEnc: deps.secrets.encrypt(token),
    tokenDigest: deps.secrets.digest(token),
    createdAt: currentTime(),
  });
  return token;
}

/** The workspace's own key and its scope, or NOT_FOUND (a key of another workspace is as unknown as a missing one). */
export async function findWorkspaceKey(
  deps: Pick<KeyDeps, 'storage'>,
  workspace: WorkspaceScope,
  apiKeyId: string,
): Promise<{ row: ApiKeyRow; scope: TenantScope }> {
  const row = await deps.storage.keys.findInWorkspace(workspace, apiKeyId);
  if (!row) throw notFound('API key not found.');
  return { row, scope: deps.storage.keys.scopeOf(row) };
}

export async function listAuthTokens(deps: KeyDeps, scope: TenantScope) {
  return (await deps.storage.keys.tokens(scope)).map((t) => ({ token: deps.secrets.decrypt(t.tokenEnc), name: t.name, domains: t.domains }));
}

/** Replaces one token (the default one unless named) with a new value; the old value stops working at once. */
export async function resetAuthToken(deps: KeyDeps & { accessEvents: AccessEvents }, scope: TenantScope, which?: string) {
  const { storage, secrets } = deps;
  const answer = await storage.transaction(async () => {
    const tokens = await storage.keys.tokens(scope);
    const target = which
      ? tokens.find((t) => constantTimeEqual(t.tokenDigest, secrets.digest(which)))
      : (tokens.find((t) => t.name === DEFAULT_AUTH_TOKEN_NAME) ?? tokens[0]);
    if (which && !target) throw notFound('Auth token not found.');
    if (target) await storage.keys.deleteToken(scope, target.id);
    const token = await issueAuthToken(deps, scope, target?.name ?? DEFAULT_AUTH_TOKEN_NAME, target?.domains ?? []);
    return { token, name: target?.name ?? DEFAULT_AUTH_TOKEN_NAME, domains: target?.domains ?? [] };
  });
  // connections opened with the old value are closed
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId });
  return answer;
}

export async function renameApiKey(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope, name: string) {
  await deps.storage.keys.update(scope, { name, updatedAt: currentTime() });
}

/** /v2/workspace/apikeys/get: the workspace's keys, oldest first, keyset-paginated. */
export async function listApiKeys(deps: { storage: Storage; pageTokens: PageTokens }, workspace: WorkspaceScope, input: z.output<typeof apiKeysGetInput>) {
  const scope = { op: 'workspace/apikeys/get', workspace: workspace.workspaceId, apiKeys: input.apiKeys ?? null };
  const after = readPageToken(deps, scope, input.pageToken, ['number', 'string']);
  const rows = await deps.storage.keys.page(workspace, { ids: input.apiKeys, after, limit: input.pageSize + 1 });
  const page = paginate(rows, input.pageSize, (r) => [r.createdAt, r.id], deps.pageTokens, scope);
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

/** What every caller of a disabled key is told (operations, websocket upgrades and their connections). */
export const API_KEY_DISABLED = "This API key is disabled by its workspace's admin; enable it again in the admin UI (Workspace, the key's page).";

/** The refusal of a disabled key's right credentials: callers that answer other refusals alike tell it apart by its class. */
export class ApiKeyDisabledError extends ApiError {
  constructor() {
    super('PERMISSION_DENIED', API_KEY_DISABLED);
  }
}

/** A key whose credentials were verified, and the scope they reach. */
export interface VerifiedKey {
  key: ApiKeyRow;
  scope: TenantScope;
}

/** Set B: the API key whose id and one of whose auth tokens were presented, or PERMISSION_DENIED (a disabled key too, once its token is right). */
export async function authenticateApiKey(deps: KeyDeps, apiKeyId: string, authToken: string): Promise<VerifiedKey> {
  const digest = deps.secrets.digest(authToken);
  const found = await deps.storage.keys.forCredentials(apiKeyId, digest);
  if (!found) throw permissionDenied('Invalid API key.');
  if (found.storedDigest === undefined || !constantTimeEqual(found.storedDigest, digest)) throw permissionDenied('Invalid auth token for this API key.');
  if (found.key.disabled) throw new ApiKeyDisabledError();
  return { key: found.key, scope: deps.storage.keys.scopeOf(found.key) };
}

/** Whether the key is disabled now (for credentials that are not its auth tokens: user tokens it signed). */
export async function apiKeyDisabled(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope): Promise<boolean> {
  return (await deps.storage.keys.find(scope))?.disabled === true;
}

export async function setSecret(deps: KeyDeps, scope: TenantScope, name: string, value: string) {
  await deps.storage.keys.setSecret(scope, name, deps.secrets.encrypt(value), currentTime());
}

export async function deleteSecret(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope, name: string) {
  await deps.storage.keys.deleteSecret(scope, name);
}

/** A decrypted secret of the key, for server-side use only (never returned by an operation). */
export async function getSecret(deps: KeyDeps, scope: TenantScope, name: string): Promise<string | undefined> {
  const valueEnc = await deps.storage.keys.secret(scope, name);
  return valueEnc === undefined ? undefined : deps.secrets.decrypt(valueEnc);
}

export const aiProviderSecretName = SECRET.ai;

/**
 * Changes the key's settings in one unit of work, on the row as it is stored then (not as the request's
 * authentication read it: a concurrent update of another section of the settings is kept), and answers the row.
 * `change` may write the key's secrets (through storage: they join the unit of work).
 */
export async function updateSettings(
  deps: Pick<KeyDeps, 'storage'>,
  scope: TenantScope,
  change: (settings: ApiKeySettings) => void | Promise<void>,
): Promise<ApiKeyRow> {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the key's lock first, then the read, so that of two
  // changes at once the second merges into what the first wrote. A caller's own unit of work (updateBasicConfig's)
  // is row level too: this one is then its savepoint.
  return storage.transaction(
    async () => {
      await storage.keys.lock(scope);
      const row = await storage.keys.find(scope);
      if (!row) throw notFound('API key not found.');
      const settings: ApiKeySettings = structuredClone(row.settings);
      await change(settings);
      const updatedAt = currentTime();
      await storage.keys.update(scope, { settings, updatedAt });
      return { ...row, settings, updatedAt };
    },
    { rowLevel: true },
  );
}

/**
 * The key's activity service: on unless turned off with activityconfig/update (keys from before that operation,
 * and new keys, have no stored value); `enabledTime` then defaults to the key's creation.
 */
export function activityServiceOf(row: Pick<ApiKeyRow, 'settings' | 'createdAt'>): { isEnabled: boolean; enabledTime: number | null } {
  return row.settings.activityServiceConfig ?? { isEnabled: true, enabledTime: row.createdAt };
}

/** Whether activities/add is accepted for the key, as stored now (in the caller's unit of work, if any). */
export async function activityServiceEnabled(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope): Promise<boolean> {
  const row = await deps.storage.keys.find(scope);
  return row ? activityServiceOf(row).isEnabled : false;
}

/** The key's permission provider settings, off and empty when never set. */
export function permissionProviderOf(settings: ApiKeySettings): { usePermissionProvider: boolean; permissionProviderUrl: string } {
  return {
    usePermissionProvider: settings.usePermissionProvider ?? false,
    permissionProviderUrl: settings.permissionProviderConfig?.permissionProviderUrl ?? '',
  };
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
export async function describePermissionProviderConfig(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope, row: ApiKeyRow, known?: Set<string>) {
  const secrets = known ?? (await deps.storage.keys.secretNames(scope));
  const { usePermissionProvider, permissionProviderUrl } = permissionProviderOf(row.settings);
  return { usePermissionProvider, permissionProviderConfig: { permissionProviderUrl, authTokenConfigured: secrets.has(SECRET.permissionProviderAuthToken) } };
}

/** /v2/workspace/apikeyconfig/get: the key's settings; secrets appear only as `configured` flags. */
export async function describeApiKeyConfig(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope, row: ApiKeyRow) {
  const secrets = await deps.storage.keys.secretNames(scope);
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
    ...(await describePermissionProviderConfig(deps, scope, row, secrets)),
    aiModelApiKey: AI_PROVIDERS.filter((p) => secrets.has(SECRET.ai(p)) || s.aiProviders[p]).map((provider) => ({
      provider,
      configured: secrets.has(SECRET.ai(provider)),
      baseUrl: s.aiProviders[provider]?.baseUrl ?? null,
    })),
  };
}

/** /v2/workspace/emailconfig/get: whether notifications are mailed, and how (the provider key only as a flag). */
export async function describeEmailConfig(deps: Pick<KeyDeps, 'storage'>, scope: TenantScope, row: ApiKeyRow) {
  const { useEmailService, emailServiceConfig } = await describeApiKeyConfig(deps, scope, row);
  return { useEmailService, emailServiceConfig };
}

/** /v2/workspace/emailconfig/update: turns the key's notification mail on or off and sets its sender and provider. */
export async function updateEmailConfig(deps: KeyDeps, scope: TenantScope, input: z.output<typeof emailConfigUpdateInput>): Promise<ApiKeyRow> {
  if (input.useEmailService === undefined && input.emailServiceConfig === undefined)
    throw invalid('At least one of useEmailService or emailServiceConfig must be provided');
  return updateSettings(deps, scope, async (settings) => {
    if (input.useEmailService !== undefined) settings.useEmailService = input.useEmailService;
    const { apiKey, type, ...fields } = input.emailServiceConfig ?? {};
    const config: Record<string, string | undefined> = { ...settings.emailServiceConfig };
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) config[name] = value === '' ? undefined : value;
    if (type !== undefined) config.type = type === 'default' ? 'default' : 'thirdparty';
    settings.emailServiceConfig = JSON.parse(JSON.stringify(config)) as ApiKeySettings['emailServiceConfig'];
    if (apiKey === '') await deleteSecret(deps, scope, SECRET.emailApiKey);
    else if (apiKey !== undefined) await setSecret(deps, scope, SECRET.emailApiKey, apiKey);
  });
}

/**
 * What the key says of its notification mail's sender: `fromCompany` as the display name, `fromEmail` as the
 * Reply-To. The mailer sends From and the envelope in the server's address whatever they are (issue 42).
 */
export function mailSender(row: ApiKeyRow): { name: string; address: string } | undefined {
  const { fromEmail, fromCompany } = row.settings.emailServiceConfig;
  return fromEmail || fromCompany ? { name: fromCompany ?? '', address: fromEmail ?? '' } : undefined;
}

/** /v2/workspace/apikeyconfig/update: partial update of the key's settings and AI provider keys. */
export async function updateApiKeyConfig(deps: KeyDeps, scope: TenantScope, input: z.output<typeof apiKeyConfigUpdateInput>): Promise<ApiKeyRow> {
  const given = Object.values(input).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (!given) throw invalid('At least one field must be provided for update');
  const providers = input.aiModelApiKey?.map((e) => e.provider) ?? [];
  if (new Set(providers).size !== providers.length) throw invalid('aiModelApiKey lists a provider more than once.');
  return updateSettings(deps, scope, async (settings) => {
    if (input.enablePrivateComments !== undefined) settings.enablePrivateComments = input.enablePrivateComments;
    if (input.requireJwtToken !== undefined) settings.requireJwtToken = input.requireJwtToken;
    if (input.requireAutoOrgUser !== undefined) settings.requireAutoOrgUser = input.requireAutoOrgUser;
    if (input.defaultDocumentAccessType !== undefined) settings.defaultDocumentAccessType = input.defaultDocumentAccessType;
    for (const entry of input.aiModelApiKey ?? []) {
      const name = SECRET.ai(entry.provider);
      if (entry.customerApiKey === '') {
        await deleteSecret(deps, scope, name);
      } else {
        await setSecret(deps, scope, name, entry.customerApiKey);
      }
      if (entry.baseUrl !== undefined) settings.aiProviders[entry.provider] = { baseUrl: entry.baseUrl };
    }
  });
}
