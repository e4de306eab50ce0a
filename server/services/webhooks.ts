import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, type SQL } from 'drizzle-orm';
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
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { apiKeys, apiKeySecrets, webhookConfigs, webhookEndpoints } from '../db/schema.ts';
import { webhookAttempts, webhookDeliveries } from '../webhooks/delivery-store.ts';
import { ApiError, failedPrecondition, invalid, notFound } from '../errors.ts';
import { BASIC_AUTH_SECRET } from '../webhooks/engine.ts';
import { newSigningSecret, parsePublicKey } from '../webhooks/crypto.ts';
import { setSecret } from './apikeys.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';

type ConfigRow = typeof webhookConfigs.$inferSelect;
type EndpointRow = typeof webhookEndpoints.$inferSelect;

export const DISABLED_MESSAGE = 'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
/** reference.md §6.2 leaves this one to us. */
export const NOT_CONFIGURED_MESSAGE = 'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
const PROVIDER_FAILED = 'Advanced webhook provider request failed.';

export function describeAdvancedConfig(row: ConfigRow | undefined) {
  return {
    isEnabled: row?.isEnabled ?? false,
    encryptData: row?.encryptData ?? false,
    encodeData: row?.encodeData ?? false,
    publicKey: row?.publicKey ?? '',
    enableDataProtection: row?.enableDataProtection ?? false,
  };
}

const configOf = (db: Db, apiKeyId: string) => db.select().from(webhookConfigs).where(eq(webhookConfigs.apiKeyId, apiKeyId)).get();

export function getAdvancedConfig(app: AppContext, apiKeyId: string) {
  return describeAdvancedConfig(configOf(app.db, apiKeyId));
}

function checkEncryption(encryptData: boolean, publicKey: string) {
  if (encryptData && !publicKey) throw invalid('encryptData requires a publicKey: the base64 body of an RSA public key.');
}

function readPublicKey(value: string): string {
  if (value === '') return '';
  const parsed = parsePublicKey(value);
  if (!parsed) throw invalid('publicKey must be an RSA public key (at least 1024 bits): the base64 body of an SPKI or PKCS#1 PEM, without the BEGIN/END lines.');
  return parsed.body;
}

/** /v2/workspace/advancedwebhookconfig/update: the first call must enable; partial; returns the whole configuration. */
export function updateAdvancedConfig(app: AppContext, apiKeyId: string, input: z.output<typeof advancedWebhookConfigUpdateInput>) {
  if (Object.values(input).every((v) => v === undefined)) {
    throw invalid('At least one of isEnabled, encryptData, encodeData, publicKey or enableDataProtection must be provided.');
  }
  const publicKey = input.publicKey === undefined ? undefined : readPublicKey(input.publicKey);
  return transaction(app.db, (tx) => {
    const current = configOf(tx, apiKeyId);
    if (!current && input.isEnabled !== true) throw failedPrecondition(NOT_CONFIGURED_MESSAGE);
    const next = { ...describeAdvancedConfig(current), ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)), ...(publicKey === undefined ? {} : { publicKey }) };
    checkEncryption(next.encryptData, next.publicKey);
    const now = Date.now();
    tx.insert(webhookConfigs)
      .values({ apiKeyId, ...next, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: webhookConfigs.apiKeyId, set: { ...next, updatedAt: now } })
      .run();
    return next;
  });
}

function requireEnabled(db: Db, apiKeyId: string) {
  if (!configOf(db, apiKeyId)?.isEnabled) throw failedPrecondition(DISABLED_MESSAGE);
}

export function describeEndpoint(row: EndpointRow) {
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

const endpointWhere = (apiKeyId: string, endpointId: string) => and(eq(webhookEndpoints.apiKeyId, apiKeyId), eq(webhookEndpoints.id, endpointId));

function requireEndpoint(db: Db, apiKeyId: string, endpointId: string): EndpointRow {
  const row = db.select().from(webhookEndpoints).where(endpointWhere(apiKeyId, endpointId)).get();
  if (!row) throw notFound(PROVIDER_FAILED);
  return row;
}

function uniqueUid<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE') throw new ApiError('ALREADY_EXISTS', 'An endpoint with this uid already exists.');
    throw error;
  }
}

export function createEndpoint(app: AppContext, apiKeyId: string, input: z.output<typeof endpointCreateInput>) {
  const url = checkUrl(input.url);
  return transaction(app.db, (tx) => {
    requireEnabled(tx, apiKeyId);
    const now = Date.now();
    const row: EndpointRow = {
      id: `ep_${randomBytes(20).toString('base64url').slice(0, 27)}`,
      apiKeyId,
      url,
      description: input.description ?? '',
      filterTypes: input.filterTypes ? [...new Set(input.filterTypes)] : null,
      channels: input.channels ? [...new Set(input.channels)] : null,
      disabled: input.disabled ?? false,
      disabledReason: null,
      rateLimit: input.rateLimit ?? null,
      uid: input.uid ?? null,
      metadata: input.metadata ?? {},
      secretEnc: app.secrets.encrypt(newSigningSecret()),
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    uniqueUid(() => tx.insert(webhookEndpoints).values(row).run());
    return describeEndpoint(row);
  });
}

/** /v2/workspace/advancedwebhook/endpoints/get: oldest first, `iterator` paging; one endpoint when `endpointId` is given. */
export function listEndpoints(app: AppContext, apiKeyId: string, input: z.output<typeof endpointsGetInput>) {
  const config = configOf(app.db, apiKeyId);
  // the list's own variant (reference §3.12) for a key that never configured advanced webhooks
  if (!config) throw failedPrecondition(NOT_CONFIGURED_MESSAGE);
  if (!config.isEnabled) throw failedPrecondition(DISABLED_MESSAGE);
  if (input.endpointId) return { endpoints: [describeEndpoint(requireEndpoint(app.db, apiKeyId, input.endpointId))], iterator: null, prevIterator: null, done: true };
  const scope = { op: 'webhook-endpoints', apiKeyId };
  const cursor = readPageToken(app, scope, input.iterator, ['number', 'string']);
  const rows = app.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.apiKeyId, apiKeyId), keysetAfter(webhookEndpoints.createdAt, webhookEndpoints.id, cursor, false)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
    .limit(input.limit + 1)
    .all();
  const page = paginate(rows, input.limit, (r) => [r.createdAt, r.id], app.pageTokens, scope);
  return { endpoints: page.items.map(describeEndpoint), iterator: page.pageToken, prevIterator: null, done: page.pageToken === null };
}

export function updateEndpoint(app: AppContext, apiKeyId: string, input: z.output<typeof endpointUpdateInput>) {
  const { endpointId, ...changes } = input;
  if (Object.values(changes).every((v) => v === undefined)) throw invalid('At least one endpoint field besides endpointId must be provided.');
  const url = changes.url === undefined ? undefined : checkUrl(changes.url);
  return transaction(app.db, (tx) => {
    requireEnabled(tx, apiKeyId);
    const row = requireEndpoint(tx, apiKeyId, endpointId);
    const set: Partial<EndpointRow> = { updatedAt: Date.now() };
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
    tx.update(webhookEndpoints).set(set).where(endpointWhere(apiKeyId, endpointId)).run();
    return describeEndpoint({ ...row, ...set });
  });
}

/** Permanent: the row and its secrets go; pending deliveries are cancelled and requests in flight are cut. */
export async function deleteEndpoint(app: AppContext, apiKeyId: string, endpointId: string) {
  transaction(app.db, (tx) => {
    requireEnabled(tx, apiKeyId);
    requireEndpoint(tx, apiKeyId, endpointId);
    tx.delete(webhookEndpoints).where(endpointWhere(apiKeyId, endpointId)).run();
  });
  // From the commit on, the worker finds no endpoint and sends nothing more; this also cuts what is in flight.
  try {
    await app.webhooks.cancelTarget(apiKeyId, endpointId);
  } catch (error) {
    // A worker restarting or stopping has nothing in flight, and cancels the pending deliveries when it next meets
    // them: the delete stands, and is answered as done (an error would invite a retry that finds nothing).
    if (!(error instanceof ApiError && error.status === 'UNAVAILABLE')) throw error;
  }
  return { endpointId, deleted: true };
}

export function endpointSecret(app: AppContext, apiKeyId: string, endpointId: string) {
  requireEnabled(app.db, apiKeyId);
  const row = requireEndpoint(app.db, apiKeyId, endpointId);
  return { endpointId, secret: app.secrets.decrypt(row.secretEnc) };
}

/** A new secret signs from now on; the previous one also signs for the overlap, so receivers can switch without a gap. */
export function rotateSecret(app: AppContext, apiKeyId: string, input: z.output<typeof secretRotateInput>) {
  return transaction(app.db, (tx) => {
    requireEnabled(tx, apiKeyId);
    const row = requireEndpoint(tx, apiKeyId, input.endpointId);
    const secret = input.key ?? newSigningSecret();
    const now = Date.now();
    const previousSecretExpiresAt = now + app.config.webhooks.rotationOverlapMs;
    tx.update(webhookEndpoints).set({ secretEnc: app.secrets.encrypt(secret), previousSecretEnc: row.secretEnc, previousSecretExpiresAt, updatedAt: now }).where(endpointWhere(apiKeyId, input.endpointId)).run();
    return { endpointId: input.endpointId, secret, previousSecretExpiresAt: new Date(previousSecretExpiresAt).toISOString() };
  });
}

function describeAttempt(row: typeof webhookAttempts.$inferSelect) {
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
export function listAttempts(app: AppContext, apiKeyId: string, input: z.output<typeof attemptsListInput>) {
  const a = webhookAttempts;
  const { iterator, limit, ...filters } = input;
  const scope = { op: 'webhook-attempts', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, iterator, ['number', 'string']);
  const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, apiKeyId), keysetAfter(a.timestamp, a.id, cursor, true)];
  if (filters.endpointId) conditions.push(eq(a.target, filters.endpointId));
  if (filters.messageId) conditions.push(eq(a.eventId, filters.messageId));
  if (filters.status) conditions.push(eq(a.status, filters.status));
  const rows = app.deliveries.select().from(a).where(and(...conditions)).orderBy(desc(a.timestamp), desc(a.id)).limit(limit + 1).all();
  const page = paginate(rows, limit, (r) => [r.timestamp, r.id], app.pageTokens, scope);
  return { attempts: page.items.map(describeAttempt), iterator: page.pageToken, done: page.pageToken === null };
}

/** Hearth: sends a message again now, to one target or to every target it was delivered to; the same `webhook-id`. */
export async function replayMessage(app: AppContext, apiKeyId: string, input: z.output<typeof messageReplayInput>) {
  const d = webhookDeliveries;
  const conditions = [eq(d.apiKeyId, apiKeyId), eq(d.eventId, input.messageId)];
  if (input.endpointId) conditions.push(eq(d.target, input.endpointId));
  const rows = app.deliveries.select({ target: d.target }).from(d).where(and(...conditions)).all();
  if (rows.length === 0) throw notFound('No delivery of this message exists for this API key.');
  const live = rows.map((r) => r.target).filter((t) => (BASIC_TARGETS as readonly string[]).includes(t) || app.db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(endpointWhere(apiKeyId, t)).get());
  if (live.length === 0) throw failedPrecondition('The endpoints this message was delivered to no longer exist.');
  await app.webhooks.replay(apiKeyId, input.messageId, live);
  return { messageId: input.messageId, endpointIds: live };
}

/** Hearth: every failed delivery to an endpoint since a time is sent again, on a fresh retry schedule. */
export async function recoverEndpoint(app: AppContext, apiKeyId: string, input: z.output<typeof endpointRecoverInput>) {
  const since = typeof input.since === 'number' ? input.since : Date.parse(input.since);
  if (!(BASIC_TARGETS as readonly string[]).includes(input.endpointId)) {
    const ep = requireEndpoint(app.db, apiKeyId, input.endpointId);
    if (ep.disabled) throw failedPrecondition('The endpoint is disabled: enable it with /v2/workspace/advancedwebhook/endpoints/update first.');
  }
  const count = await app.webhooks.recover(apiKeyId, input.endpointId, since);
  return { endpointId: input.endpointId, recovered: count };
}

// --- Basic webhooks ----------------------------------------------------------------------------------------

export function describeBasicConfig(app: AppContext, row: ApiKeyRow) {
  const configured = !!app.db.select({ name: apiKeySecrets.name }).from(apiKeySecrets).where(and(eq(apiKeySecrets.apiKeyId, row.id), eq(apiKeySecrets.name, BASIC_AUTH_SECRET))).get();
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

const BAD_BASIC = 'Invalid webhook service configuration.';

/** /v2/workspace/webhookconfig/update: partial; the auth token is stored encrypted and never returned ('' removes it). */
export function updateBasicConfig(app: AppContext, row: ApiKeyRow, input: z.output<typeof webhookConfigUpdateInput>): ApiKeyRow {
  if (input.useWebhookService === undefined && input.webhookServiceConfig === undefined) throw invalid('At least one of useWebhookService or webhookServiceConfig must be provided.');
  const given = input.webhookServiceConfig ?? {};
  for (const url of [given.rawNotificationUrl, given.processedNotificationUrl]) {
    if (!url) continue;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    } catch {
      throw invalid(`${BAD_BASIC} rawNotificationUrl and processedNotificationUrl must be http(s) URLs.`);
    }
  }
  let publicKey: string | undefined;
  try {
    publicKey = given.publicKey === undefined ? undefined : readPublicKey(given.publicKey);
  } catch (error) {
    throw invalid(`${BAD_BASIC} ${(error as Error).message}`);
  }
  const { authToken, ...rest } = given;
  const settings: ApiKeySettings = structuredClone(row.settings);
  if (input.useWebhookService !== undefined) settings.useWebhookService = input.useWebhookService;
  const merged = { ...settings.webhookServiceConfig, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)), ...(publicKey === undefined ? {} : { publicKey }) };
  if (given.triggers) merged.triggers = { ...settings.webhookServiceConfig.triggers, ...given.triggers };
  if (merged.encryptData && !merged.publicKey) throw invalid(`${BAD_BASIC} encryptData requires a publicKey.`);
  settings.webhookServiceConfig = merged;
  return transaction(app.db, (tx) => {
    if (authToken === '') tx.delete(apiKeySecrets).where(and(eq(apiKeySecrets.apiKeyId, row.id), eq(apiKeySecrets.name, BASIC_AUTH_SECRET))).run();
    else if (authToken !== undefined) setSecret(app, tx, row.id, BASIC_AUTH_SECRET, authToken);
    const updatedAt = Date.now();
    tx.update(apiKeys).set({ settings, updatedAt }).where(eq(apiKeys.id, row.id)).run();
    return { ...row, settings, updatedAt };
  });
}
