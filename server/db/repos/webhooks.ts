// Webhooks in hearth.db: the advanced configuration and endpoints of a key, and the outbox (webhook_events) that
// changes write their events to in their own unit of work (DESIGN §3.6). The dispatcher's side of the outbox
// (debounced events falling due, the writes the delivery worker asks for) spans every key: those methods take no
// scope and hand back the scope of each row they answer. Delivery state (webhooks.db) is read by
// repos/webhook-deliveries.ts and written by the delivery worker (repos/webhook-delivery.ts).
import { and, asc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { setCheckpointerRunning } from '../checkpointer.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import { connectionOf } from '../connection.ts';
import { preparedFor } from '../prepared.ts';
import { apiKeys, webhookConfigs, webhookEndpoints, webhookEvents } from '../schema.ts';
import { tenantScope, type TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';
import { ENDPOINT_TAKES_EVENT } from './webhook-delivery.ts';

export type WebhookConfigRow = typeof webhookConfigs.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookEventRow = typeof webhookEvents.$inferSelect;
export type WebhookConfigFields = Pick<WebhookConfigRow, 'isEnabled' | 'encryptData' | 'encodeData' | 'publicKey' | 'enableDataProtection'>;
export type EndpointChange = Partial<Omit<WebhookEndpointRow, 'id' | 'apiKeyId' | 'createdAt'>>;

/** Who would receive an event now: advanced endpoints, basic URLs (or nobody: nothing is written). */
export interface Subscribers {
  advanced: boolean;
  basic: boolean;
}
/** Where an event is about: an endpoint's `channels` match its organization or its document. */
export interface EventChannels {
  organizationId?: string | null | undefined;
  documentId?: string | null | undefined;
}
/** The columns of an outbox event besides its payloads. */
export interface OutboxEvent extends EventChannels {
  type: string;
  /** Addressed to this endpoint alone (a test event): see DomainEvent in webhooks/outbox.ts. */
  targetEndpointId?: string | undefined;
  /** Whether the event has a basic form (the basic service's families). */
  hasBasicForm: boolean;
}
/** An event's id and payloads (JSON text), built once the subscribers are known. */
export interface OutboxPayloads {
  id: string;
  payload: string | null;
  basic: string | null;
}
/** A write the delivery worker asks for in hearth.db (webhooks/protocol.ts's MainWrite, less the events it emits). */
export type DeliveryStateWrite =
  | { kind: 'dispatched'; eventId: string; at: number }
  | { kind: 'failing'; endpointId: string; since: number }
  | { kind: 'recovered'; endpointId: string }
  | { kind: 'disable'; endpointId: string; reason: string; at: number };

/**
 * Whether a live endpoint would take the event, by the rule the worker fans events out with (webhook-delivery.ts).
 * An event no endpoint takes is not written, and a debounced one is not opened.
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

/** The basic service's settings as the outbox reads them (the rest of a key's settings does not matter here). */
interface BasicSettings {
  useWebhookService?: boolean;
  webhookServiceConfig?: { rawNotificationUrl?: string; processedNotificationUrl?: string; triggers?: Record<string, boolean> };
}

/** The outbox's statements, compiled once per connection (plain SQL: this is every change's hot path). */
const outboxStatements = preparedFor((db) => {
  const sqlite = connectionOf(db);
  return {
    advanced: sqlite.prepare<[string, string, string | null, string | null], { advanced: number }>(ADVANCED_SUBSCRIBED),
    targetLive: sqlite.prepare<[string, string], { live: number }>(TARGET_LIVE),
    keySettings: sqlite.prepare<[string], { settings: string }>(KEY_SETTINGS),
    insert:
      sqlite.prepare<[string, string, string, string | null, string | null, string | null, string | null, string | null, number, number, string | null]>(
        INSERT_EVENT,
      ),
    pendingDebounced: sqlite.prepare<[string, string], { id: string }>(PENDING_DEBOUNCED),
  };
});

/**
 * Who would receive an event of this type now. `basicTriggers` answers whether the basic service's triggers take
 * the type (its defaults are the API contract's, shared/schemas/webhooks.ts: the caller knows them).
 */
function subscribersIn(db: Db, apiKeyId: string, event: OutboxEvent, basicTakes: BasicTriggers): Subscribers {
  const s = outboxStatements(db);
  if (event.targetEndpointId !== undefined) return { advanced: s.targetLive.get(apiKeyId, event.targetEndpointId)?.live === 1, basic: false };
  const advanced = s.advanced.get(apiKeyId, event.type, event.organizationId || null, event.documentId || null)?.advanced === 1;
  let basic = false;
  if (event.hasBasicForm) {
    const row = s.keySettings.get(apiKeyId);
    const settings = row ? (JSON.parse(row.settings) as BasicSettings) : undefined;
    const config = settings?.webhookServiceConfig;
    basic = !!settings?.useWebhookService && !!(config?.rawNotificationUrl || config?.processedNotificationUrl) && basicTakes(event.type, config?.triggers);
  }
  return { advanced, basic };
}

/** Whether the basic service's triggers (the key's, over the defaults) take an event type. */
export type BasicTriggers = (type: string, triggers: Record<string, boolean> | undefined) => boolean;

const endpointById = preparedFor((db) =>
  db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.apiKeyId, sql.placeholder('apiKeyId')), eq(webhookEndpoints.id, sql.placeholder('id'))))
    .prepare(),
);
const configOf = preparedFor((db) =>
  db
    .select()
    .from(webhookConfigs)
    .where(eq(webhookConfigs.apiKeyId, sql.placeholder('apiKeyId')))
    .prepare(),
);

const dispatcherStatements = preparedFor((db) => {
  const pendingDebounced = and(isNull(webhookEvents.dispatchedAt), isNotNull(webhookEvents.dedupeKey));
  const P = <T>(name: string) => sql.placeholder(name) as unknown as T;
  return {
    dispatched: db
      .update(webhookEvents)
      .set({ dispatchedAt: P('at') })
      .where(eq(webhookEvents.id, P<string>('id')))
      .prepare(),
    nextDebounced: db
      .select({ at: webhookEvents.availableAt })
      .from(webhookEvents)
      .where(pendingDebounced)
      .orderBy(asc(webhookEvents.availableAt))
      .limit(1)
      .prepare(),
    dueDebounced: db
      .select({ row: webhookEvents, workspaceId: apiKeys.workspaceId })
      .from(webhookEvents)
      .leftJoin(apiKeys, eq(apiKeys.id, webhookEvents.apiKeyId))
      .where(and(pendingDebounced, lte(webhookEvents.availableAt, P<number>('now'))))
      .orderBy(asc(webhookEvents.availableAt))
      .limit(100)
      .prepare(),
    workspaceOf: db
      .select({ workspaceId: apiKeys.workspaceId })
      .from(apiKeys)
      .where(eq(apiKeys.id, P<string>('id')))
      .prepare(),
  };
});

const endpointWhere = (scope: TenantScope, endpointId: string) => and(eq(webhookEndpoints.apiKeyId, scope.apiKeyId), eq(webhookEndpoints.id, endpointId));

export function webhooksRepo(engine: SqliteEngine) {
  return {
    // --- the advanced configuration and endpoints ------------------------------------------------------------

    config: (scope: TenantScope) => engine.read((db) => configOf(db).get({ apiKeyId: scope.apiKeyId })),

    /** Writes the whole configuration (created when missing). */
    saveConfig: (scope: TenantScope, fields: WebhookConfigFields, now: number) =>
      engine.write((db) => {
        db.insert(webhookConfigs)
          .values({ apiKeyId: scope.apiKeyId, ...fields, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: webhookConfigs.apiKeyId, set: { ...fields, updatedAt: now } })
          .run();
      }),

    endpoint: (scope: TenantScope, endpointId: string) => engine.read((db) => endpointById(db).get({ apiKeyId: scope.apiKeyId, id: endpointId })),

    /** The ones of these ids that are endpoints of the key, in one step. */
    existingEndpoints: (scope: TenantScope, endpointIds: readonly string[]) =>
      engine.read((db) => new Set(endpointIds.filter((id) => endpointById(db).get({ apiKeyId: scope.apiKeyId, id }) !== undefined))),

    /** Adds it; false when its uid is taken by another endpoint of the key. */
    insertEndpoint: (scope: TenantScope, row: Omit<WebhookEndpointRow, 'apiKeyId'>) =>
      engine.write((db) => {
        try {
          db.insert(webhookEndpoints)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .run();
          return true;
        } catch (error) {
          if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
          throw error;
        }
      }),

    /** A page of the key's endpoints, oldest first, after the (createdAt, id) cursor: `limit` rows at most. */
    endpointsPage: (scope: TenantScope, after: Cursor | null, limit: number) =>
      engine.read((db) =>
        db
          .select()
          .from(webhookEndpoints)
          .where(and(eq(webhookEndpoints.apiKeyId, scope.apiKeyId), keysetAfter(webhookEndpoints.createdAt, webhookEndpoints.id, after, false)))
          .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
          .limit(limit)
          .all(),
      ),

    /** Changes the given fields; whether it existed. */
    updateEndpoint: (scope: TenantScope, endpointId: string, change: EndpointChange) =>
      engine.write((db) => db.update(webhookEndpoints).set(change).where(endpointWhere(scope, endpointId)).run().changes > 0),

    /** Whether it existed. */
    deleteEndpoint: (scope: TenantScope, endpointId: string) =>
      engine.write((db) => db.delete(webhookEndpoints).where(endpointWhere(scope, endpointId)).run().changes > 0),

    // --- the outbox -------------------------------------------------------------------------------------------

    /** Who would receive an event now (for a caller that builds the event only when someone would). */
    subscribers: (scope: TenantScope, event: OutboxEvent, basicTakes: BasicTriggers) =>
      engine.read((db) => subscribersIn(db, scope.apiKeyId, event, basicTakes)),

    /**
     * Writes an event to the outbox in the caller's unit of work, when anyone would receive it (`who`, or asked
     * now): one step, the check and the insert. `build` makes its id and payloads for those subscribers. Returns
     * the event's id, or null when nothing was written.
     */
    emit: (scope: TenantScope, event: OutboxEvent, basicTakes: BasicTriggers, build: (who: Subscribers) => OutboxPayloads, who?: Subscribers) =>
      engine.write((db) => {
        const to = who && event.targetEndpointId === undefined ? who : subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!to.advanced && !to.basic) return null;
        const { id, payload, basic } = build(to);
        const now = Date.now();
        outboxStatements(db).insert.run(
          id,
          scope.apiKeyId,
          event.type,
          event.organizationId ?? null,
          event.documentId ?? null,
          payload,
          basic,
          null,
          now,
          now,
          event.targetEndpointId ?? null,
        );
        return id;
      }),

    /**
     * Opens (or keeps) the one pending debounced event of `dedupeKey`, its payload to be made when it falls due:
     * `opened`, `pending` (one was open already), or `none` (nobody subscribes: nothing written).
     */
    openDebounced: (
      scope: TenantScope,
      event: OutboxEvent & { id: string; dedupeKey: string; createdAt: number; availableAt: number },
      basicTakes: BasicTriggers,
    ) =>
      engine.write((db): 'opened' | 'pending' | 'none' => {
        const who = subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!who.advanced && !who.basic) return 'none';
        const s = outboxStatements(db);
        if (s.pendingDebounced.get(scope.apiKeyId, event.dedupeKey)) return 'pending';
        s.insert.run(
          event.id,
          scope.apiKeyId,
          event.type,
          event.organizationId ?? null,
          event.documentId ?? null,
          null,
          null,
          event.dedupeKey,
          event.availableAt,
          event.createdAt,
          null,
        );
        return 'opened';
      }),

    // --- the dispatcher (every key) ---------------------------------------------------------------------------

    /**
     * Whether the delivery worker has anything to do from the start: a key with advanced webhooks or the basic
     * service on, or outbox events not yet handed over.
     */
    inUse: () =>
      engine.read(
        (db) =>
          db.get<{ n: number }>(
            sql`SELECT (EXISTS (SELECT 1 FROM webhook_configs WHERE is_enabled = 1) OR EXISTS (SELECT 1 FROM api_keys WHERE json_extract(settings, '$.useWebhookService') = 1) OR EXISTS (SELECT 1 FROM webhook_events WHERE dispatched_at IS NULL)) AS n`,
          )?.n === 1,
      ),

    /** The writes the delivery worker asked for, in one step (the caller's unit of work). */
    applyDeliveryState: (writes: readonly DeliveryStateWrite[]) =>
      engine.write((db) => {
        const e = webhookEndpoints;
        const q = dispatcherStatements(db);
        for (const w of writes) {
          if (w.kind === 'dispatched') q.dispatched.run({ id: w.eventId, at: w.at });
          else if (w.kind === 'failing')
            db.update(e)
              .set({ failingSince: w.since })
              .where(and(eq(e.id, w.endpointId), isNull(e.failingSince)))
              .run();
          else if (w.kind === 'recovered')
            db.update(e)
              .set({ failingSince: null })
              .where(and(eq(e.id, w.endpointId), isNotNull(e.failingSince)))
              .run();
          else db.update(e).set({ disabled: true, disabledReason: w.reason, updatedAt: w.at }).where(eq(e.id, w.endpointId)).run();
        }
      }),

    /** The scopes of keys the server acts for (an event the dispatcher emits for a key): undefined for a key that is gone. */
    scopesOf: (apiKeyIds: readonly string[]) =>
      engine.read((db) => {
        const scopes = new Map<string, TenantScope>();
        for (const id of new Set(apiKeyIds)) {
          const row = dispatcherStatements(db).workspaceOf.get({ id });
          if (row) scopes.set(id, tenantScope(id, row.workspaceId));
        }
        return scopes;
      }),

    /** Debounced events that fell due (100 at most), each with the scope of its key (the server acts for it). */
    dueDebounced: (now: number) =>
      engine.read((db) => {
        return dispatcherStatements(db)
          .dueDebounced.all({ now })
          .map(({ row, workspaceId }) => ({ row, scope: workspaceId === null ? undefined : tenantScope(row.apiKeyId, workspaceId) }));
      }),

    /** When the next debounced event falls due. */
    nextDebounced: () => engine.read((db) => dispatcherStatements(db).nextDebounced.get()?.at),

    /** A debounced event waits longer. */
    postponeDebounced: (eventId: string, until: number) =>
      engine.write((db) => void db.update(webhookEvents).set({ availableAt: until }).where(eq(webhookEvents.id, eventId)).run()),

    /** A debounced event with nothing to send is closed (marked dispatched: the next change opens a new one). */
    dropDebounced: (eventId: string, now: number) => engine.write((db) => void dispatcherStatements(db).dispatched.run({ id: eventId, at: now })),

    /**
     * Releases a debounced event as a ready one (no dedupe key: the next change opens a new pending one), when
     * anyone would receive it; else closes it. `followUp` opens the event that covers changes still to come.
     * Whether it was released.
     */
    releaseDebounced: (
      scope: TenantScope,
      row: WebhookEventRow,
      event: OutboxEvent,
      basicTakes: BasicTriggers,
      build: (who: Subscribers) => Omit<OutboxPayloads, 'id'>,
      now: number,
      followUp?: { id: string; availableAt: number },
    ) =>
      engine.write((db) => {
        const where = and(eq(webhookEvents.apiKeyId, scope.apiKeyId), eq(webhookEvents.id, row.id));
        const who = subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!who.advanced && !who.basic) {
          dispatcherStatements(db).dispatched.run({ id: row.id, at: now });
          return false;
        }
        const { payload, basic } = build(who);
        // the columns are JSON text: the payloads are written as built
        db.update(webhookEvents)
          .set({ payload: sql`${payload}`, basicPayload: sql`${basic}`, dedupeKey: null, availableAt: now })
          .where(where)
          .run();
        if (followUp) {
          outboxStatements(db).insert.run(
            followUp.id,
            scope.apiKeyId,
            row.type,
            row.organizationId,
            row.documentId,
            null,
            null,
            row.dedupeKey,
            followUp.availableAt,
            now,
            null,
          );
        }
        return true;
      }),

    /**
     * Whether the delivery worker's checkpointer runs (db/checkpointer.ts): while it does, this process's
     * connections' own automatic checkpoints are the rarer backstop.
     */
    workerCheckpoints: (running: boolean) => {
      setCheckpointerRunning(engine.main.sqlite, running);
      setCheckpointerRunning(engine.writer.sqlite, running);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
