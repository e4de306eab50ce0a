import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { defaultBasicTriggers, type WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { Db } from '../db/client.ts';
import { apiKeys, webhookConfigs, webhookEndpoints, webhookEvents, type StoredUser } from '../db/schema.ts';

/** Message ids look like Svix's: `msg_` + 27 base62-ish characters, unique and unguessable. */
export const newMessageId = () => `msg_${randomBytes(20).toString('base64url').slice(0, 27)}`;

/**
 * Dispatchers listening for new outbox rows. Module-wide because events are written deep inside services'
 * transactions; a wake meant for another server in the same process (tests run several) only costs that
 * dispatcher one empty query.
 */
const listeners = new Set<() => void>();
export function onOutboxWrite(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function signalOutbox() {
  for (const listener of listeners) listener();
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
}

/** Who would receive an event of this type now: advanced endpoints, basic URLs, or nobody (nothing is written). */
export function subscribers(tx: Db, apiKeyId: string, type: WebhookEventType, hasBasicForm: boolean): { advanced: boolean; basic: boolean } {
  // One small query on every change of a key that may have no webhook at all: hand-written, not built.
  const row = tx.get<{ advanced: number }>(
    sql`select exists(select 1 from ${webhookConfigs} c join ${webhookEndpoints} e on e.api_key_id = c.api_key_id where c.api_key_id = ${apiKeyId} and c.is_enabled = 1 and e.disabled = 0) as advanced`,
  );
  const advanced = row?.advanced === 1;
  let basic = false;
  if (hasBasicForm) {
    const key = tx.select({ settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get();
    const s = key?.settings;
    const config = s?.webhookServiceConfig;
    basic = !!s?.useWebhookService && !!(config?.rawNotificationUrl || config?.processedNotificationUrl) && ({ ...defaultBasicTriggers(), ...config?.triggers }[type] ?? false);
  }
  return { advanced, basic };
}

/** The `metadata` of payloads (reference.md 4.6: the hosted internal organization id is the md5 of the client's). */
export function eventMetadata(organizationId: string | null | undefined, documentId: string | null | undefined) {
  if (!organizationId) return documentId ? { clientDocumentId: documentId } : {};
  return {
    organizationId: createHash('md5').update(organizationId).digest('hex'),
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
export function emitEvent(tx: Db, event: DomainEvent): string | null {
  const who = subscribers(tx, event.apiKeyId, event.type, event.basic !== undefined);
  if (!who.advanced && !who.basic) return null;
  const id = newMessageId();
  const now = Date.now();
  tx.insert(webhookEvents)
    .values({
      id,
      apiKeyId: event.apiKeyId,
      type: event.type,
      organizationId: event.organizationId ?? null,
      documentId: event.documentId ?? null,
      payload: who.advanced ? advancedPayload(event) : null,
      basicPayload: who.basic ? basicPayload(event) : null,
      availableAt: now,
      createdAt: now,
    })
    .run();
  signalOutbox();
  return id;
}

/**
 * Opens (or keeps) the one pending debounced event for `dedupeKey`: its payload is computed when it is sent,
 * so the receiver gets the state after the last change of the burst. Returns false when nobody subscribes.
 */
export function openDebouncedEvent(tx: Db, event: { apiKeyId: string; type: WebhookEventType; organizationId: string; documentId: string; dedupeKey: string; createdAt: number; availableAt: number }): boolean {
  const who = subscribers(tx, event.apiKeyId, event.type, true);
  if (!who.advanced && !who.basic) return false;
  const pending = tx
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.apiKeyId, event.apiKeyId), eq(webhookEvents.dedupeKey, event.dedupeKey), isNull(webhookEvents.dispatchedAt)))
    .get();
  if (pending) return true;
  tx.insert(webhookEvents)
    .values({ id: newMessageId(), apiKeyId: event.apiKeyId, type: event.type, organizationId: event.organizationId, documentId: event.documentId, payload: null, basicPayload: null, dedupeKey: event.dedupeKey, availableAt: event.availableAt, createdAt: event.createdAt })
    .run();
  signalOutbox();
  return true;
}
