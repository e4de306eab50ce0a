import { createHash, randomFillSync } from 'node:crypto';
import type { ApiKeySettings } from '../../shared/schemas/apikey.ts';
import { defaultBasicTriggers, type WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { Db } from '../db/client.ts';
import { connectionOf } from '../db/prepared.ts';
import type { StoredUser } from '../db/schema.ts';
import { ENDPOINT_TAKES_EVENT } from './engine-queries.ts';

/** Message ids look like Svix's: `msg_` + 27 base62-ish characters, unique and unguessable. */
/**
 * Message ids look like Svix's, `msg_` + 27 characters, and like theirs they are time-ordered: 12 hex digits of the
 * millisecond, then 15 base64url characters (90 random bits). Ids written one after another then land on the
 * same last page of the outbox's primary-key index instead of on a random page each, which is most of what an
 * event costs the commit of the change that writes it.
 */
export const newMessageId = () => `msg_${Date.now().toString(16).padStart(12, '0')}${randomId()}`;

/** 15 base64url characters (90 random bits) from a pool refilled 4 KiB at a time: one syscall per 300 ids. */
const ID_BYTES = 12;
const pool = Buffer.alloc(4092);
let poolAt = pool.length;
function randomId(): string {
  if (poolAt + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += ID_BYTES;
  return pool.toString('base64url', poolAt - ID_BYTES, poolAt).slice(0, 15);
}

/**
 * Dispatchers listening for new outbox rows. Module-wide because events are written deep inside services'
 * transactions; a wake meant for another server in the same process (tests run several) only costs that
 * dispatcher one empty query.
 */
type OutboxListener = (kind: 'ready' | 'debounced') => void;
const listeners = new Set<OutboxListener>();
export function onOutboxWrite(listener: OutboxListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
/** `ready`: an event the delivery worker may fan out now; `debounced`: one the main thread resolves when it falls due. */
export function signalOutbox(kind: 'ready' | 'debounced') {
  for (const listener of listeners) listener(kind);
}

export interface DomainEvent {
  apiKeyId: string;
  type: WebhookEventType;
  organizationId?: string | null;
  documentId?: string | null;
  actionUser?: StoredUser | null;
  /** The advanced `actionType` (reference.md 4.2 samples: `add`, `updateData`). */
  actionType: string;
  /** The advanced `source`: `comment`, `huddle`, `crdt`, `recorder`, `notification`, `platform`. */
  source: string;
  /** The family's payload fields; a function when building them costs work that is wasted without a receiver. */
  data: Record<string, unknown> | (() => Record<string, unknown>);
  /** Top-level fields of the advanced payload besides `data` (the users' notification settings maps). */
  top?: Record<string, unknown>;
  /** The basic form, for the families the basic service knows (reference.md 4.6); omitted for the others. */
  basic?: { actionType: string; notificationSource: 'comment' | 'huddle' | 'crdt' | 'recorder'; fields: Record<string, unknown> };
  /**
   * Addressed to this endpoint alone (the admin UI's test event): it gets the event whatever its filters, while it
   * is enabled under an enabled configuration; no other endpoint and no basic URL does.
   */
  targetEndpointId?: string;
}

/**
 * Whether a live endpoint would take the event, by the rule the worker fans events out with (engine-queries.ts).
 * An event no endpoint takes is not written, and a debounced one is not opened: resolving it costs the main
 * thread a read of the whole document when it is released (crdt/events.ts).
 */
const ADVANCED_SUBSCRIBED = `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = ? AND c.is_enabled = 1 AND e.disabled = 0 AND ${ENDPOINT_TAKES_EVENT}) AS advanced`;
/** Whether the one endpoint an event is addressed to would take it: enabled, under an enabled configuration. */
const TARGET_LIVE = `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = ? AND c.is_enabled = 1 AND e.id = ? AND e.disabled = 0) AS live`;
const KEY_SETTINGS = 'SELECT settings FROM api_keys WHERE id = ?';
const INSERT_EVENT =
  'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, basic_payload, dedupe_key, available_at, created_at, target_endpoint_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const PENDING_DEBOUNCED = 'SELECT id FROM webhook_events WHERE api_key_id = ? AND dedupe_key = ? AND dispatched_at IS NULL';

/** Where an event is about: an endpoint's `channels` match its organization or its document. */
export interface EventChannels {
  organizationId?: string | null | undefined;
  documentId?: string | null | undefined;
}

/** Who would receive an event of this type now: advanced endpoints, basic URLs, or nobody (nothing is written). */
export function subscribers(tx: Db, apiKeyId: string, type: WebhookEventType, hasBasicForm: boolean, channels: EventChannels): { advanced: boolean; basic: boolean } {
  const sqlite = connectionOf(tx);
  const advanced = (sqlite.prepare(ADVANCED_SUBSCRIBED).get(apiKeyId, type, channels.organizationId || null, channels.documentId || null) as { advanced: number } | undefined)?.advanced === 1;
  let basic = false;
  if (hasBasicForm) {
    const row = sqlite.prepare(KEY_SETTINGS).get(apiKeyId) as { settings: string } | undefined;
    const s = row ? (JSON.parse(row.settings) as ApiKeySettings) : undefined;
    const config = s?.webhookServiceConfig;
    basic = !!s?.useWebhookService && !!(config?.rawNotificationUrl || config?.processedNotificationUrl) && ({ ...defaultBasicTriggers(), ...config?.triggers }[type] ?? false);
  }
  return { advanced, basic };
}

/** The `metadata` of payloads (reference.md 4.6: the hosted internal organization id is the md5 of the client's). */
const hashedIds = new Map<string, string>();
/** The md5 of an organization id, remembered for the organizations events are written for (bounded). */
function internalOrganizationId(organizationId: string): string {
  let hashed = hashedIds.get(organizationId);
  if (hashed === undefined) {
    if (hashedIds.size >= 10_000) hashedIds.clear();
    hashed = createHash('md5').update(organizationId).digest('hex');
    hashedIds.set(organizationId, hashed);
  }
  return hashed;
}

export function eventMetadata(organizationId: string | null | undefined, documentId: string | null | undefined) {
  if (!organizationId) return documentId ? { clientDocumentId: documentId } : {};
  return {
    organizationId: internalOrganizationId(organizationId),
    clientOrganizationId: organizationId,
    ...(documentId ? { clientDocumentId: documentId } : {}),
  };
}

export function advancedPayload(event: DomainEvent) {
  return {
    event: event.type,
    actionType: event.actionType,
    source: event.source,
    platform: 'sdk',
    data: { actionUser: event.actionUser ?? null, metadata: eventMetadata(event.organizationId, event.documentId), ...(typeof event.data === 'function' ? event.data() : event.data) },
    ...event.top,
  };
}

export function basicPayload(event: DomainEvent) {
  if (!event.basic) return null;
  return {
    actionType: event.basic.actionType,
    notificationSource: event.basic.notificationSource,
    actionUser: event.actionUser ?? null,
    metadata: eventMetadata(event.organizationId, event.documentId),
    platform: 'sdk',
    ...event.basic.fields,
  };
}

/**
 * Writes a domain event to the outbox in the caller's transaction (DESIGN §3.6): it commits with the change or
 * not at all, and a crash after the commit cannot lose it. Nothing is written when no webhook would receive it.
 */
export function emitEvent(tx: Db, event: DomainEvent, who = subscribers(tx, event.apiKeyId, event.type, event.basic !== undefined, event)): string | null {
  if (event.targetEndpointId !== undefined) who = { advanced: (connectionOf(tx).prepare(TARGET_LIVE).get(event.apiKeyId, event.targetEndpointId) as { live: number }).live === 1, basic: false };
  if (!who.advanced && !who.basic) return null;
  const id = newMessageId();
  const now = Date.now();
  const payload = who.advanced ? JSON.stringify(advancedPayload(event)) : null;
  const basic = who.basic ? JSON.stringify(basicPayload(event)) : null;
  connectionOf(tx).prepare(INSERT_EVENT).run(id, event.apiKeyId, event.type, event.organizationId ?? null, event.documentId ?? null, payload, basic, null, now, now, event.targetEndpointId ?? null);
  signalOutbox('ready');
  return id;
}

/**
 * Opens (or keeps) the one pending debounced event for `dedupeKey`: its payload is computed when it falls due
 * (dispatcher.ts), so the receiver gets the state after the last change of the burst. Returns false when nobody
 * subscribes.
 */
export function openDebouncedEvent(tx: Db, event: { apiKeyId: string; type: WebhookEventType; organizationId: string; documentId: string; dedupeKey: string; createdAt: number; availableAt: number }): boolean {
  const who = subscribers(tx, event.apiKeyId, event.type, true, event);
  if (!who.advanced && !who.basic) return false;
  const sqlite = connectionOf(tx);
  if (sqlite.prepare(PENDING_DEBOUNCED).get(event.apiKeyId, event.dedupeKey)) return true;
  sqlite.prepare(INSERT_EVENT).run(newMessageId(), event.apiKeyId, event.type, event.organizationId, event.documentId, null, null, event.dedupeKey, event.availableAt, event.createdAt, null);
  signalOutbox('debounced');
  return true;
}
