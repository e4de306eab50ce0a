import { currentTime } from '../clock.ts';
import { createHash, randomFillSync } from 'node:crypto';
import { defaultBasicTriggers, type WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { StoredUser } from '../db/repos/comments.ts';
import type { Storage } from '../db/repos/index.ts';
import type { BasicTriggers, EventChannels, OutboxEvent, Subscribers, WebhookEventRow } from '../db/repos/webhooks.ts';
import type { TenantScope } from '../db/scope.ts';

// The outbox, the service side: domain events as receivers see them (payloads, ids), written through the webhooks
// repository in the caller's unit of work (repos/webhooks.ts).

export type { EventChannels, Subscribers };
/** What writing to the outbox needs. */
export type OutboxDeps = { storage: Storage };

/**
 * Message ids look like Svix's, `msg_` + 27 characters, and like theirs they are time-ordered: 12 hex digits of the
 * millisecond, then 15 base64url characters (90 random bits). Ids written one after another then land on the
 * same last page of the outbox's primary-key index instead of on a random page each, which is most of what an
 * event costs the commit of the change that writes it.
 */
export const newMessageId = () => `msg_${currentTime().toString(16).padStart(12, '0')}${randomId()}`;

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

/** Whether the basic service's triggers (the key's over the defaults) take an event type. */
const basicTakes: BasicTriggers = (type, triggers) => (({ ...defaultBasicTriggers(), ...triggers }) as Record<string, boolean>)[type] ?? false;

/** The outbox columns of an event. */
const outboxEvent = (event: DomainEvent): OutboxEvent => ({
  type: event.type,
  organizationId: event.organizationId,
  documentId: event.documentId,
  targetEndpointId: event.targetEndpointId,
  hasBasicForm: event.basic !== undefined,
});

/** Who would receive an event of this type now: advanced endpoints, basic URLs, or nobody (nothing is written). */
export function subscribers(
  deps: OutboxDeps,
  scope: TenantScope,
  type: WebhookEventType,
  hasBasicForm: boolean,
  channels: EventChannels,
): Promise<Subscribers> {
  return deps.storage.webhooks.subscribers(scope, { type, hasBasicForm, organizationId: channels.organizationId, documentId: channels.documentId }, basicTakes);
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
    data: {
      actionUser: event.actionUser ?? null,
      metadata: eventMetadata(event.organizationId, event.documentId),
      ...(typeof event.data === 'function' ? event.data() : event.data),
    },
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

/** The payloads of an event for its subscribers (JSON text), with a new id. */
const payloadsFor = (event: DomainEvent) => (who: Subscribers) => ({
  id: newMessageId(),
  payload: who.advanced ? JSON.stringify(advancedPayload(event)) : null,
  basic: who.basic ? JSON.stringify(basicPayload(event)) : null,
});

/**
 * Writes a domain event to the outbox in the caller's unit of work (DESIGN §3.6): it commits with the change or
 * not at all, and a crash after the commit cannot lose it. Nothing is written when no webhook would receive it
 * (`who`, when the caller asked already). One step: the check and the insert.
 */
export async function emitEvent(deps: OutboxDeps, scope: TenantScope, event: DomainEvent, who?: Subscribers): Promise<string | null> {
  const id = await deps.storage.webhooks.emit(scope, outboxEvent(event), basicTakes, payloadsFor(event), who);
  // the worker reads on a connection of its own: woken once the event is committed, not before
  if (id !== null) deps.storage.afterCommit(() => signalOutbox('ready'));
  return id;
}

/**
 * Opens (or keeps) the one pending debounced event for `dedupeKey`, in the caller's unit of work: its payload is
 * computed when it falls due (dispatcher.ts), so the receiver gets the state after the last change of the burst.
 * Returns false when nobody subscribes.
 */
export async function openDebouncedEvent(
  deps: OutboxDeps,
  scope: TenantScope,
  event: { type: WebhookEventType; organizationId: string; documentId: string; dedupeKey: string; createdAt: number; availableAt: number },
): Promise<boolean> {
  const opened = await deps.storage.webhooks.openDebounced(scope, { ...event, id: newMessageId(), hasBasicForm: true }, basicTakes);
  if (opened === 'opened') deps.storage.afterCommit(() => signalOutbox('debounced'));
  return opened !== 'none';
}

/**
 * A debounced event that fell due, released with the payloads of `event` (or closed when nobody would receive it
 * now); `followUpAt` opens the event that covers the changes still to come. Whether it was released.
 */
export function releaseDebouncedEvent(
  deps: OutboxDeps,
  scope: TenantScope,
  row: WebhookEventRow,
  event: DomainEvent,
  now: number,
  followUpAt?: number,
): Promise<boolean> {
  const build = payloadsFor(event);
  return deps.storage.webhooks.releaseDebounced(
    scope,
    row,
    outboxEvent(event),
    basicTakes,
    (who) => build(who),
    now,
    followUpAt === undefined ? undefined : { id: newMessageId(), availableAt: followUpAt },
  );
}
