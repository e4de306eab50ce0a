import { currentTime } from '../clock.ts';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { ApiKeySettings } from '../../shared/schemas/apikey.ts';
import {
  BASIC_TARGETS,
  defaultBasicTriggers,
  type advancedWebhookConfigUpdateInput,
  type attemptsListInput,
  type endpointCreateInput,
  type endpointRecoverInput,
  type endpointsGetInput,
  type endpointUpdateInput,
  type messageReplayInput,
  type secretRotateInput,
  type webhookConfigUpdateInput,
} from '../../shared/schemas/webhooks.ts';
import type { Config } from '../config.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import type { AttemptRow } from '../db/repos/webhook-deliveries.ts';
import type { EndpointChange, WebhookConfigRow, WebhookEndpointRow } from '../db/repos/webhooks.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError, failedPrecondition, invalid, notFound } from '../errors.ts';
import type { Secrets } from '../security/secrets.ts';
import { BASIC_AUTH_SECRET } from '../webhooks/engine.ts';
import { newSigningSecret, parsePublicKey } from '../webhooks/crypto.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { deleteSecret, setSecret, updateSettings } from './apikeys.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';

/** What the webhook services use; each takes the part it needs. */
export interface WebhookDeps {
  storage: Storage;
  secrets: Secrets;
  pageTokens: PageTokens;
  /** The delivery worker's commands (cancel, replay, recover). */
  webhooks: WebhookDispatcher;
  config: Pick<Config, 'webhooks'>;
}

export const DISABLED_MESSAGE =
  'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
/** reference.md §6.2 leaves this one to us. */
export const NOT_CONFIGURED_MESSAGE =
  'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
const PROVIDER_FAILED = 'Advanced webhook provider request failed.';

export function describeAdvancedConfig(row: WebhookConfigRow | undefined) {
  return {
    isEnabled: row?.isEnabled ?? false,
    encryptData: row?.encryptData ?? false,
    encodeData: row?.encodeData ?? false,
    publicKey: row?.publicKey ?? '',
    enableDataProtection: row?.enableDataProtection ?? false,
  };
}

export async function getAdvancedConfig(deps: Pick<WebhookDeps, 'storage'>, scope: TenantScope) {
  return describeAdvancedConfig(await deps.storage.webhooks.config(scope));
}

function checkEncryption(encryptData: boolean, publicKey: string) {
  if (encryptData && !publicKey) throw invalid('encryptData requires a publicKey: the base64 body of an RSA public key.');
}

function readPublicKey(value: string): string {
  if (value === '') return '';
  const parsed = parsePublicKey(value);
  if (!parsed)
    throw invalid('publicKey must be an RSA public key (at least 1024 bits): the base64 body of an SPKI or PKCS#1 PEM, without the BEGIN/END lines.');
  return parsed.body;
}

/**
 * Row level on PostgreSQL (docs/storage.md, "Invariants"): the configuration's update and an endpoint's update and
 * rotation take its key lock first (`webhooks.lockConfig`, `lockEndpoint`), then read it, so that of two at once the
 * second merges into (or keeps as its previous secret) what the first wrote; an endpoint's create is one insert
 * (`ON CONFLICT DO NOTHING` on its uid, the count the answer) and its delete one `DELETE`, their counts the answers.
 * The enabled check before an endpoint's change reads the configuration as of its statement: a change beside a
 * concurrent disable is the order in which it came first.
 */
const ROW_LEVEL = { rowLevel: true };

/** /v2/workspace/advancedwebhookconfig/update: the first call must enable; partial; returns the whole configuration. */
export async function updateAdvancedConfig(deps: Pick<WebhookDeps, 'storage'>, scope: TenantScope, input: z.output<typeof advancedWebhookConfigUpdateInput>) {
  if (Object.values(input).every((v) => v === undefined)) {
    throw invalid('At least one of isEnabled, encryptData, encodeData, publicKey or enableDataProtection must be provided.');
  }
  const publicKey = input.publicKey === undefined ? undefined : readPublicKey(input.publicKey);
  const { storage } = deps;
  return storage.transaction(async () => {
    await storage.webhooks.lockConfig(scope);
    const current = await storage.webhooks.config(scope);
    if (!current && input.isEnabled !== true) throw failedPrecondition(NOT_CONFIGURED_MESSAGE);
    const next = {
      ...describeAdvancedConfig(current),
      ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
      ...(publicKey === undefined ? {} : { publicKey }),
    };
    checkEncryption(next.encryptData, next.publicKey);
    await storage.webhooks.saveConfig(scope, next, currentTime());
    return next;
  }, ROW_LEVEL);
}

async function requireEnabled(storage: Storage, scope: TenantScope) {
  if (!(await storage.webhooks.config(scope))?.isEnabled) throw failedPrecondition(DISABLED_MESSAGE);
}

export function describeEndpoint(row: WebhookEndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filterTypes: row.filterTypes,
    channels: row.channels,
    disabled: row.disabled,
    disabledReason: row.disabledReason,
    rateLimit: row.rateLimit,
    uid: row.uid,
    metadata: row.metadata,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('url must be a valid http(s) URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('url must be a valid http(s) URL.');
  return url;
}

async function requireEndpoint(storage: Storage, scope: TenantScope, endpointId: string): Promise<WebhookEndpointRow> {
  const row = await storage.webhooks.endpoint(scope, endpointId);
  if (!row) throw notFound(PROVIDER_FAILED);
  return row;
}

export async function createEndpoint(deps: Pick<WebhookDeps, 'storage' | 'secrets'>, scope: TenantScope, input: z.output<typeof endpointCreateInput>) {
  const url = checkUrl(input.url);
  const { storage } = deps;
  return storage.transaction(async () => {
    await requireEnabled(storage, scope);
    const now = currentTime();
    const row: WebhookEndpointRow = {
      id: `ep_${randomBytes(20).toString('base64url').slice(0, 27)}`,
      apiKeyId: scope.apiKeyId,
      url,
      description: input.description ?? '',
      filterTypes: input.filterTypes ? [...new Set(input.filterTypes)] : null,
      channels: input.channels ? [...new Set(input.channels)] : null,
      disabled: input.disabled ?? false,
      disabledReason: null,
      rateLimit: input.rateLimit ?? null,
      uid: input.uid ?? null,
      metadata: input.metadata ?? {},
      secretEnc: deps.secrets.encrypt(newSigningSecret()),
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await storage.webhooks.insertEndpoint(scope, row))) throw new ApiError('ALREADY_EXISTS', 'An endpoint with this uid already exists.');
    return describeEndpoint(row);
  }, ROW_LEVEL);
}

/** /v2/workspace/advancedwebhook/endpoints/get: oldest first, `iterator` paging; one endpoint when `endpointId` is given. */
export async function listEndpoints(deps: Pick<WebhookDeps, 'storage' | 'pageTokens'>, scope: TenantScope, input: z.output<typeof endpointsGetInput>) {
  const { storage } = deps;
  const config = await storage.webhooks.config(scope);
  // the list's own variant (reference §3.12) for a key that never configured advanced webhooks
  if (!config) throw failedPrecondition(NOT_CONFIGURED_MESSAGE);
  if (!config.isEnabled) throw failedPrecondition(DISABLED_MESSAGE);
  if (input.endpointId)
    return { endpoints: [describeEndpoint(await requireEndpoint(storage, scope, input.endpointId))], iterator: null, prevIterator: null, done: true };
  const tokenScope = { op: 'webhook-endpoints', apiKeyId: scope.apiKeyId };
  const cursor = readPageToken(deps, tokenScope, input.iterator, ['number', 'string']);
  const rows = await storage.webhooks.endpointsPage(scope, cursor, input.limit + 1);
  const page = paginate(rows, input.limit, (r) => [r.createdAt, r.id], deps.pageTokens, tokenScope);
  return { endpoints: page.items.map(describeEndpoint), iterator: page.pageToken, prevIterator: null, done: page.pageToken === null };
}

export async function updateEndpoint(deps: Pick<WebhookDeps, 'storage'>, scope: TenantScope, input: z.output<typeof endpointUpdateInput>) {
  const { endpointId, ...changes } = input;
  if (Object.values(changes).every((v) => v === undefined)) throw invalid('At least one endpoint field besides endpointId must be provided.');
  const url = changes.url === undefined ? undefined : checkUrl(changes.url);
  const { storage } = deps;
  return storage.transaction(async () => {
    await requireEnabled(storage, scope);
    await storage.webhooks.lockEndpoint(scope, endpointId);
    const row = await requireEndpoint(storage, scope, endpointId);
    const set: EndpointChange = { updatedAt: currentTime() };
    if (url !== undefined) set.url = url;
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.filterTypes !== undefined) set.filterTypes = changes.filterTypes?.length ? [...new Set(changes.filterTypes)] : null;
    if (changes.channels !== undefined) set.channels = changes.channels?.length ? [...new Set(changes.channels)] : null;
    if (changes.rateLimit !== undefined) set.rateLimit = changes.rateLimit;
    if (changes.metadata !== undefined) set.metadata = changes.metadata;
    if (changes.disabled !== undefined) {
      set.disabled = changes.disabled;
      set.disabledReason = null;
      // Re-enabled: the failure run starts over.
      if (!changes.disabled) set.failingSince = null;
    }
    await storage.webhooks.updateEndpoint(scope, endpointId, set);
    return describeEndpoint({ ...row, ...set });
  }, ROW_LEVEL);
}

/** Permanent: the row and its secrets go; pending deliveries are cancelled and requests in flight are cut. */
export async function deleteEndpoint(deps: Pick<WebhookDeps, 'storage' | 'webhooks'>, scope: TenantScope, endpointId: string) {
  const { storage } = deps;
  await storage.transaction(async () => {
    await requireEnabled(storage, scope);
    if (!(await storage.webhooks.deleteEndpoint(scope, endpointId))) throw notFound(PROVIDER_FAILED);
  }, ROW_LEVEL);
  // From the commit on, the worker finds no endpoint and sends nothing more; this also cuts what is in flight.
  try {
    await deps.webhooks.cancelTarget(scope.apiKeyId, endpointId);
  } catch (error) {
    // A worker restarting or stopping has nothing in flight, and cancels the pending deliveries when it next meets
    // them: the delete stands, and is answered as done (an error would invite a retry that finds nothing).
    if (!(error instanceof ApiError && error.status === 'UNAVAILABLE')) throw error;
  }
  return { endpointId, deleted: true };
}

export async function endpointSecret(deps: Pick<WebhookDeps, 'storage' | 'secrets'>, scope: TenantScope, endpointId: string) {
  await requireEnabled(deps.storage, scope);
  const row = await requireEndpoint(deps.storage, scope, endpointId);
  return { endpointId, secret: deps.secrets.decrypt(row.secretEnc) };
}

/** A new secret signs from now on; the previous one also signs for the overlap, so receivers can switch without a gap. */
export async function rotateSecret(deps: Pick<WebhookDeps, 'storage' | 'secrets' | 'config'>, scope: TenantScope, input: z.output<typeof secretRotateInput>) {
  const { storage } = deps;
  return storage.transaction(async () => {
    await requireEnabled(storage, scope);
    await storage.webhooks.lockEndpoint(scope, input.endpointId);
    const row = await requireEndpoint(storage, scope, input.endpointId);
    const secret = input.key ?? newSigningSecret();
    const now = currentTime();
    const previousSecretExpiresAt = now + deps.config.webhooks.rotationOverlapMs;
    await storage.webhooks.updateEndpoint(scope, input.endpointId, {
      secretEnc: deps.secrets.encrypt(secret),
      previousSecretEnc: row.secretEnc,
      previousSecretExpiresAt,
      updatedAt: now,
    });
    return { endpointId: input.endpointId, secret, previousSecretExpiresAt: new Date(previousSecretExpiresAt).toISOString() };
  }, ROW_LEVEL);
}

function describeAttempt(row: AttemptRow) {
  return {
    id: row.id,
    messageId: row.eventId,
    endpointId: row.target,
    url: row.url,
    trigger: row.trigger,
    status: row.status,
    responseStatusCode: row.responseStatusCode,
    response: row.response,
    responseDurationMs: row.durationMs,
    timestamp: new Date(row.timestamp).toISOString(),
  };
}

/** Hearth: the attempts of a message and/or an endpoint (a basic URL is `basic:raw` / `basic:processed`), newest first. */
export async function listAttempts(deps: Pick<WebhookDeps, 'storage' | 'pageTokens'>, scope: TenantScope, input: z.output<typeof attemptsListInput>) {
  const { iterator, limit, ...filters } = input;
  const tokenScope = { op: 'webhook-attempts', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, tokenScope, iterator, ['number', 'string']);
  const rows = await deps.storage.deliveries.attempts(scope, filters, cursor, limit + 1);
  const page = paginate(rows, limit, (r) => [r.timestamp, r.id], deps.pageTokens, tokenScope);
  return { attempts: page.items.map(describeAttempt), iterator: page.pageToken, done: page.pageToken === null };
}

/** Hearth: sends a message again now, to one target or to every target it was delivered to; the same `webhook-id`. */
export async function replayMessage(deps: Pick<WebhookDeps, 'storage' | 'webhooks'>, scope: TenantScope, input: z.output<typeof messageReplayInput>) {
  const targets = await deps.storage.deliveries.targetsOf(scope, input.messageId, input.endpointId);
  if (targets.length === 0) throw notFound('No delivery of this message exists for this API key.');
  const isBasic = (t: string) => (BASIC_TARGETS as readonly string[]).includes(t);
  const endpoints = await deps.storage.webhooks.existingEndpoints(
    scope,
    targets.filter((t) => !isBasic(t)),
  );
  const live = targets.filter((t) => isBasic(t) || endpoints.has(t));
  if (live.length === 0) throw failedPrecondition('The endpoints this message was delivered to no longer exist.');
  await deps.webhooks.replay(scope.apiKeyId, input.messageId, live);
  return { messageId: input.messageId, endpointIds: live };
}

/** Hearth: every failed delivery to an endpoint since a time is sent again, on a fresh retry schedule. */
export async function recoverEndpoint(deps: Pick<WebhookDeps, 'storage' | 'webhooks'>, scope: TenantScope, input: z.output<typeof endpointRecoverInput>) {
  const since = typeof input.since === 'number' ? input.since : Date.parse(input.since);
  if (!(BASIC_TARGETS as readonly string[]).includes(input.endpointId)) {
    const ep = await requireEndpoint(deps.storage, scope, input.endpointId);
    if (ep.disabled) throw failedPrecondition('The endpoint is disabled: enable it with /v2/workspace/advancedwebhook/endpoints/update first.');
  }
  const count = await deps.webhooks.recover(scope.apiKeyId, input.endpointId, since);
  return { endpointId: input.endpointId, recovered: count };
}

// --- Basic webhooks ----------------------------------------------------------------------------------------

/** /v2/workspace/webhookconfig/get (and update's answer): the auth token appears only as `authTokenConfigured`. */
export async function describeBasicConfig(deps: Pick<WebhookDeps, 'storage'>, scope: TenantScope, row: ApiKeyRow) {
  const configured = (await deps.storage.keys.secret(scope, BASIC_AUTH_SECRET)) !== undefined;
  const c = row.settings.webhookServiceConfig;
  return {
    useWebhookService: row.settings.useWebhookService,
    webhookServiceConfig: {
      rawNotificationUrl: c.rawNotificationUrl ?? '',
      processedNotificationUrl: c.processedNotificationUrl ?? '',
      authTokenConfigured: configured,
      encodeData: c.encodeData ?? false,
      encryptData: c.encryptData ?? false,
      publicKey: c.publicKey ?? '',
      enableDataProtection: c.enableDataProtection ?? false,
      triggers: { ...defaultBasicTriggers(), ...c.triggers },
    },
  };
}

/**
 * The hosted message, exactly (reference §3.1); what is wrong goes to the error's `details` (`{ field, reason }`),
 * never into the message.
 */
const badBasic = (field: string, reason: string) => invalid('Invalid webhook service configuration.', { field, reason });

/**
 * /v2/workspace/webhookconfig/update: partial; the auth token is stored encrypted and never returned ('' removes
 * it). The change is merged into the settings as stored in its unit of work, not as the request's authentication
 * read them: two updates at once each keep the other's fields.
 */
export async function updateBasicConfig(
  deps: Pick<WebhookDeps, 'storage' | 'secrets'>,
  scope: TenantScope,
  input: z.output<typeof webhookConfigUpdateInput>,
): Promise<ApiKeyRow> {
  if (input.useWebhookService === undefined && input.webhookServiceConfig === undefined)
    throw invalid('At least one of useWebhookService or webhookServiceConfig must be provided.');
  const given = input.webhookServiceConfig ?? {};
  for (const field of ['rawNotificationUrl', 'processedNotificationUrl'] as const) {
    const url = given[field];
    if (!url) continue;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    } catch {
      throw badBasic(`webhookServiceConfig.${field}`, `${field} must be an http(s) URL.`);
    }
  }
  let publicKey: string | undefined;
  try {
    publicKey = given.publicKey === undefined ? undefined : readPublicKey(given.publicKey);
  } catch (error) {
    throw badBasic('webhookServiceConfig.publicKey', (error as Error).message);
  }
  const { authToken, ...rest } = given;
  return deps.storage.transaction(async () => {
    const row = await updateSettings(deps, scope, (settings: ApiKeySettings) => {
      if (input.useWebhookService !== undefined) settings.useWebhookService = input.useWebhookService;
      const merged = {
        ...settings.webhookServiceConfig,
        ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
        ...(publicKey === undefined ? {} : { publicKey }),
      };
      if (given.triggers) merged.triggers = { ...settings.webhookServiceConfig.triggers, ...given.triggers };
      if (merged.encryptData && !merged.publicKey) throw badBasic('webhookServiceConfig.publicKey', 'encryptData requires a publicKey.');
      settings.webhookServiceConfig = merged;
    });
    if (authToken === '') await deleteSecret(deps, scope, BASIC_AUTH_SECRET);
    else if (authToken !== undefined) await setSecret(deps, scope, BASIC_AUTH_SECRET, authToken);
    return row;
  }, ROW_LEVEL);
}
