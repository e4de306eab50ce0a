// Webhooks in hearth.db: the advanced configuration and endpoints of a key, and the outbox (webhook_events) that
// changes write their events to in their own unit of work (DESIGN §3.6). The dispatcher's side of the outbox
// (debounced events falling due, the writes the delivery worker asks for) spans every key: those methods take no
// scope and hand back the scope of each row they answer. Delivery state (webhooks.db on SQLite, its tables on
// PostgreSQL) is read by repos/webhook-deliveries.ts and written by the delivery worker (repos/webhook-delivery.ts).
//
// Written once for both engines (engine.ts; test/pg/webhooks.test.ts runs it on both and compares every answer). The
// outbox's statements are every change's hot path and read JSON arrays (an endpoint's type and channel filters),
// whose functions differ between the engines (json_each; json_array_elements): they are plain SQL in each engine's
// dialect (`outboxSql`), prepared once per connection, as SQLite's were before; on SQLite they answer synchronously,
// and the outbox's methods run them without a microtask between them (`then`, `answerFor`). Opening a debounced event
// looks for the pending one, then inserts `ON CONFLICT … DO NOTHING` on the partial unique index
// webhook_events_dedupe: two units of work at READ COMMITTED could both pass the look.
import type Database from 'better-sqlite3';
import { and, asc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { setCheckpointerRunning } from '../checkpointer.ts';
import { connectionOf } from '../connection.ts';
import type { Engine, Q } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { PgDb } from '../pg/engine.ts';
import { preparedFor } from '../prepared.ts';
import type { webhookConfigs, webhookEndpoints, webhookEvents } from '../schema.ts';
import { tenantScope, type TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';
import { ENDPOINT_TAKES_EVENT, endpointTakesEvent } from './webhook-delivery.ts';

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

/** Whether the basic service's triggers (the key's, over the defaults) take an event type. */
export type BasicTriggers = (type: string, triggers: Record<string, boolean> | undefined) => boolean;

/** The basic service's settings as the outbox reads them (the rest of a key's settings does not matter here). */
interface BasicSettings {
  useWebhookService?: boolean;
  webhookServiceConfig?: { rawNotificationUrl?: string; processedNotificationUrl?: string; triggers?: Record<string, boolean> };
}

/** An outbox event's columns, in the order of the insert's parameters. */
type EventValues = [
  id: string,
  apiKeyId: string,
  type: string,
  organizationId: string | null,
  documentId: string | null,
  payload: string | null,
  basicPayload: string | null,
  dedupeKey: string | null,
  availableAt: number,
  createdAt: number,
  targetEndpointId: string | null,
];

const INSERT_EVENT = {
  sqlite:
    'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, basic_payload, dedupe_key, available_at, created_at, target_endpoint_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  /** The payloads are JSON text, cast to json as written (`json` keeps the text, key order and all). */
  postgres:
    'INSERT INTO webhook_events (id, api_key_id, type, organization_id, document_id, payload, basic_payload, dedupe_key, available_at, created_at, target_endpoint_id)' +
    ' VALUES ($1, $2, $3, $4, $5, $6::text::json, $7::text::json, $8, $9, $10, $11)',
};
/** A debounced event, unless one of its key and dedupe key is pending already (the webhook_events_dedupe index). */
const UNLESS_PENDING = ' ON CONFLICT (api_key_id, dedupe_key) WHERE dispatched_at IS NULL AND dedupe_key IS NOT NULL DO NOTHING';

/**
 * Whether a live endpoint would take an event, by the rule the worker fans events out with (webhook-delivery.ts), on
 * PostgreSQL: SQL expressions for the key, the event's type, its organization and its document (NULL for none).
 * notifications/add asks it inside its prelude (pg/repos/notifications.ts).
 */
export const advancedTakesEventPg = (key: string, type: string, organization: string, document: string) =>
  `EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = ${key} AND c.is_enabled AND NOT e.disabled AND ${endpointTakesEvent(type, organization, document)})`;

/** advancedTakesEventPg as a statement of each engine: the key, then the event's type, organization and document. */
export const ADVANCED_TAKES_EVENT = {
  sqlite: `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = ? AND c.is_enabled = 1 AND e.disabled = 0 AND ${ENDPOINT_TAKES_EVENT}) AS yes`,
  postgres: `SELECT ${advancedTakesEventPg('$1', '$2', '$3', '$4')} AS yes`,
};

/**
 * The outbox's statements and the dispatcher's start-up question in each engine's SQL, with the same positional
 * values. They differ in JSON (SQLite's json_each, json_type and json_extract; PostgreSQL's json_array_elements,
 * json_typeof and `->`: ENDPOINT_TAKES_EVENT in webhook-delivery.ts and its PostgreSQL form, endpointTakesEvent),
 * booleans (SQLite's 0/1) and parameters (`?`; `$n`).
 */
const outboxSql = {
  /**
   * Whether a live endpoint would take the event, by the rule the worker fans events out with (webhook-delivery.ts).
   * An event no endpoint takes is not written, and a debounced one is not opened.
   */
  advanced: ADVANCED_TAKES_EVENT,
  /** Whether the one endpoint an event is addressed to would take it: enabled, under an enabled configuration. */
  targetLive: {
    sqlite: `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = ? AND c.is_enabled = 1 AND e.id = ? AND e.disabled = 0) AS yes`,
    postgres: `SELECT EXISTS(SELECT 1 FROM webhook_configs c JOIN webhook_endpoints e ON e.api_key_id = c.api_key_id
  WHERE c.api_key_id = $1 AND c.is_enabled AND e.id = $2 AND NOT e.disabled) AS yes`,
  },
  /** The settings as their text (JSON.parse'd here). */
  keySettings: { sqlite: 'SELECT settings FROM api_keys WHERE id = ?', postgres: 'SELECT settings::text AS settings FROM api_keys WHERE id = $1' },
  insertEvent: INSERT_EVENT,
  /** The pending debounced event of a key and dedupe key. */
  pendingDebounced: {
    sqlite: 'SELECT id FROM webhook_events WHERE api_key_id = ? AND dedupe_key = ? AND dispatched_at IS NULL',
    postgres: 'SELECT id FROM webhook_events WHERE api_key_id = $1 AND dedupe_key = $2 AND dispatched_at IS NULL',
  },
  openDebounced: { sqlite: INSERT_EVENT.sqlite + UNLESS_PENDING, postgres: INSERT_EVENT.postgres + UNLESS_PENDING },
  /** SQLite's json_extract(settings, '$.useWebhookService') = 1 is JSON true, or a number equal to 1: the same on PostgreSQL. */
  inUse: {
    sqlite:
      "SELECT (EXISTS (SELECT 1 FROM webhook_configs WHERE is_enabled = 1) OR EXISTS (SELECT 1 FROM api_keys WHERE json_extract(settings, '$.useWebhookService') = 1) OR EXISTS (SELECT 1 FROM webhook_events WHERE dispatched_at IS NULL)) AS yes",
    postgres:
      'SELECT (EXISTS (SELECT 1 FROM webhook_configs WHERE is_enabled)' +
      " OR EXISTS (SELECT 1 FROM api_keys WHERE CASE json_typeof(settings -> 'useWebhookService')" +
      " WHEN 'boolean' THEN (settings ->> 'useWebhookService')::boolean WHEN 'number' THEN (settings ->> 'useWebhookService')::numeric = 1 ELSE false END)" +
      ' OR EXISTS (SELECT 1 FROM webhook_events WHERE dispatched_at IS NULL)) AS yes',
  },
} satisfies Record<string, { sqlite: string; postgres: string }>;

/** A value now (SQLite's statements answer synchronously) or later (PostgreSQL's). */
type Maybe<T> = T | Promise<T>;

/**
 * `f` of the value, at once when it is there: the outbox's path on SQLite (every change that emits an event) runs
 * its statements one after the other without a microtask between them, as it did when it was SQLite's alone.
 */
const then = <T, R>(value: Maybe<T>, f: (value: T) => Maybe<R>): Maybe<R> => (value instanceof Promise ? value.then(f) : f(value));

/**
 * The outbox's statements as a callback of `engine.read` and `engine.write`. SQLite's dialect runs the callback
 * inside an async function (storage.ts's sqliteDialect), which makes a promise of a value (or of an error thrown) at
 * once, where a promise handed back costs two more microtask turns: about 0.4 µs of an emit that takes 3 to 6
 * (measured on this path), so on SQLite the value goes as it is. PostgreSQL's dialect hands the callback's answer on
 * as it is: there it is made a promise, an error thrown before the first statement a rejected one.
 */
const answerFor =
  (engine: Engine) =>
  <T>(statements: () => Maybe<T>): Promise<T> =>
    engine.kind === 'sqlite' ? (statements() as Promise<T>) : (async () => statements())();

/** One of those statements: its first row, or how many rows it changed. */
interface PlainStatement {
  first(db: Q, values: readonly unknown[]): Maybe<Record<string, unknown> | undefined>;
  run(db: Q, values: readonly unknown[]): Maybe<number>;
}

/**
 * `outboxSql`'s statements on `engine`: on SQLite better-sqlite3's, prepared once per connection (drizzle's build
 * and binding cost more than these lookups take to run) and answering synchronously; on PostgreSQL named statements,
 * which each pooled connection parses once.
 */
function plainStatements(engine: Engine): Record<keyof typeof outboxSql, PlainStatement> {
  if (engine.kind === 'sqlite') {
    const statements = preparedFor((db) => {
      const sqlite = connectionOf(db);
      return Object.fromEntries(Object.entries(outboxSql).map(([name, text]) => [name, sqlite.prepare(text.sqlite)])) as Record<
        keyof typeof outboxSql,
        Database.Statement
      >;
    });
    return Object.fromEntries(
      Object.keys(outboxSql).map((name) => {
        const of = (db: Q) => statements(db)[name as keyof typeof outboxSql];
        return [
          name,
          {
            first: (db, values) => of(db).get(...values) as Record<string, unknown> | undefined,
            run: (db, values) => of(db).run(...values).changes,
          } satisfies PlainStatement,
        ];
      }),
    ) as Record<keyof typeof outboxSql, PlainStatement>;
  }
  return Object.fromEntries(
    Object.entries(outboxSql).map(([name, text]) => {
      const query = (db: Q, values: readonly unknown[]) =>
        (db as unknown as PgDb).$client.query({ name: `webhooks.${name}`, text: text.postgres, values: [...values] });
      return [
        name,
        {
          first: async (db, values) => (await query(db, values)).rows[0] as Record<string, unknown> | undefined,
          run: async (db, values) => (await query(db, values)).rowCount ?? 0,
        } satisfies PlainStatement,
      ];
    }),
  ) as Record<keyof typeof outboxSql, PlainStatement>;
}

/** An EXISTS answer: SQLite's 1 or PostgreSQL's true. */
const yes = (row: Record<string, unknown> | undefined) => row?.yes === 1 || row?.yes === true;

/**
 * The repository over `engine`. `sqlite` is SQLite's engine, whose two connections to hearth.db `workerCheckpoints`
 * tunes; without it (PostgreSQL) `workerCheckpoints` does nothing.
 */
export function webhooksRepo(engine: Engine, sqlite?: Pick<SqliteEngine, 'main' | 'writer'>) {
  const { webhookConfigs: cfg, webhookEndpoints: e, webhookEvents: ev, apiKeys: k } = engine.t;
  const plain = plainStatements(engine);
  const answer = answerFor(engine);
  const P = <T>(name: string) => sql.placeholder(name) as unknown as T;

  /**
   * Who would receive an event of this type now. `basicTakes` answers whether the basic service's triggers take
   * the type (its defaults are the API contract's, shared/schemas/webhooks.ts: the caller knows them).
   */
  function subscribersIn(db: Q, apiKeyId: string, event: OutboxEvent, basicTakes: BasicTriggers): Maybe<Subscribers> {
    if (event.targetEndpointId !== undefined)
      return then(plain.targetLive.first(db, [apiKeyId, event.targetEndpointId]), (row) => ({ advanced: yes(row), basic: false }));
    return then(plain.advanced.first(db, [apiKeyId, event.type, event.organizationId || null, event.documentId || null]), (row) => {
      const advanced = yes(row);
      if (!event.hasBasicForm) return { advanced, basic: false };
      return then(plain.keySettings.first(db, [apiKeyId]), (key) => {
        const settings = key ? (JSON.parse(key.settings as string) as BasicSettings) : undefined;
        const config = settings?.webhookServiceConfig;
        const basic =
          !!settings?.useWebhookService && !!(config?.rawNotificationUrl || config?.processedNotificationUrl) && basicTakes(event.type, config?.triggers);
        return { advanced, basic };
      });
    });
  }

  const configOf = engine.prepare('webhooks.config', (db) =>
    db
      .select()
      .from(cfg)
      .where(eq(cfg.apiKeyId, P('apiKeyId'))),
  );
  const endpointById = engine.prepare('webhooks.endpoint', (db) =>
    db
      .select()
      .from(e)
      .where(and(eq(e.apiKeyId, P('apiKeyId')), eq(e.id, P('id')))),
  );
  const dispatched = engine.prepare('webhooks.dispatched', (db) =>
    db
      .update(ev)
      .set({ dispatchedAt: P('at') })
      .where(eq(ev.id, P<string>('id'))),
  );
  const pendingDebounced = and(isNull(ev.dispatchedAt), isNotNull(ev.dedupeKey));
  const nextDebounced = engine.prepare('webhooks.nextDebounced', (db) =>
    db.select({ at: ev.availableAt }).from(ev).where(pendingDebounced).orderBy(asc(ev.availableAt)).limit(1),
  );
  // ties of available_at go by id: SQLite's index answered them in insertion order (rowid), which PostgreSQL has no
  // counterpart of
  const dueDebounced = engine.prepare('webhooks.dueDebounced', (db) =>
    db
      .select({ row: ev, workspaceId: k.workspaceId })
      .from(ev)
      .leftJoin(k, eq(k.id, ev.apiKeyId))
      .where(and(pendingDebounced, lte(ev.availableAt, P<number>('now'))))
      .orderBy(asc(ev.availableAt), asc(ev.id))
      .limit(100),
  );

  const endpointWhere = (scope: TenantScope, endpointId: string) => and(eq(e.apiKeyId, scope.apiKeyId), eq(e.id, endpointId));

  return {
    // --- the advanced configuration and endpoints ------------------------------------------------------------

    config: (scope: TenantScope) => engine.read((db) => configOf.one(db, { apiKeyId: scope.apiKeyId })),

    /**
     * Takes the key's advanced-webhook configuration lock, or an endpoint's, for the rest of the unit of work
     * (engine.lockRows; nothing on SQLite, whose write unit holds the database): a configuration update merges into
     * what it read, and a secret's rotation keeps the secret it read as the previous one, so a second one waits for
     * the first's commit, then reads what it left.
     */
    lockConfig: (scope: TenantScope) => engine.write((db) => engine.lockRows(db, ['webhook-config', scope.apiKeyId], ['advanced'])),
    lockEndpoint: (scope: TenantScope, endpointId: string) => engine.write((db) => engine.lockRows(db, ['webhook-endpoint', scope.apiKeyId], [endpointId])),

    /** Writes the whole configuration (created when missing). */
    saveConfig: (scope: TenantScope, fields: WebhookConfigFields, now: number) =>
      engine.write(async (db) => {
        await db
          .insert(cfg)
          .values({ apiKeyId: scope.apiKeyId, ...fields, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: cfg.apiKeyId, set: { ...fields, updatedAt: now } });
      }),

    endpoint: (scope: TenantScope, endpointId: string) => engine.read((db) => endpointById.one(db, { apiKeyId: scope.apiKeyId, id: endpointId })),

    /** The ones of these ids that are endpoints of the key, in one step (one statement), in the order of the ids asked. */
    existingEndpoints: (scope: TenantScope, endpointIds: readonly string[]) =>
      engine.read(async (db) => {
        if (endpointIds.length === 0) return new Set<string>();
        const found = await db
          .select({ id: e.id })
          .from(e)
          .where(and(eq(e.apiKeyId, scope.apiKeyId), inArray(e.id, [...new Set(endpointIds)])));
        const ids = new Set(found.map((row) => row.id));
        return new Set(endpointIds.filter((id) => ids.has(id)));
      }),

    /**
     * Adds it; false when its uid is taken by another endpoint of the key. Only the (api_key_id, uid) index answers
     * false (a taken id is a primary key violation, and throws): the conflict target is that index alone, rather
     * than a caught error, which would abort the caller's unit of work on PostgreSQL.
     */
    insertEndpoint: (scope: TenantScope, row: Omit<WebhookEndpointRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .insert(e)
              .values({ ...row, apiKeyId: scope.apiKeyId })
              .onConflictDoNothing({ target: [e.apiKeyId, e.uid] }),
          ) > 0,
      ),

    /** A page of the key's endpoints, oldest first, after the (createdAt, id) cursor: `limit` rows at most. */
    endpointsPage: (scope: TenantScope, after: Cursor | null, limit: number) =>
      engine.read((db) =>
        db
          .select()
          .from(e)
          .where(and(eq(e.apiKeyId, scope.apiKeyId), keysetAfter(e.createdAt, e.id, after, false)))
          .orderBy(asc(e.createdAt), asc(e.id))
          .limit(limit),
      ),

    /** Changes the given fields; whether it existed. */
    updateEndpoint: (scope: TenantScope, endpointId: string, change: EndpointChange) =>
      engine.write(async (db) => engine.changed(await db.update(e).set(change).where(endpointWhere(scope, endpointId))) > 0),

    /** Whether it existed. */
    deleteEndpoint: (scope: TenantScope, endpointId: string) =>
      engine.write(async (db) => engine.changed(await db.delete(e).where(endpointWhere(scope, endpointId))) > 0),

    // --- the outbox -------------------------------------------------------------------------------------------

    /** Who would receive an event now (for a caller that builds the event only when someone would). */
    subscribers: (scope: TenantScope, event: OutboxEvent, basicTakes: BasicTriggers) =>
      engine.read((db) => answer(() => subscribersIn(db, scope.apiKeyId, event, basicTakes))),

    /**
     * Writes an event to the outbox in the caller's unit of work, when anyone would receive it (`who`, or asked
     * now): one step, the check and the insert. `build` makes its id and payloads for those subscribers. Returns
     * the event's id, or null when nothing was written.
     */
    emit: (scope: TenantScope, event: OutboxEvent, basicTakes: BasicTriggers, build: (who: Subscribers) => OutboxPayloads, who?: Subscribers) =>
      engine.write((db) =>
        answer(() =>
          then(who && event.targetEndpointId === undefined ? who : subscribersIn(db, scope.apiKeyId, event, basicTakes), (to) => {
            if (!to.advanced && !to.basic) return null;
            const { id, payload, basic } = build(to);
            const now = Date.now();
            const values: EventValues = [
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
            ];
            return then(plain.insertEvent.run(db, values), () => id);
          }),
        ),
      ),

    /**
     * Opens (or keeps) the one pending debounced event of `dedupeKey`, its payload to be made when it falls due:
     * `opened`, `pending` (one was open already), or `none` (nobody subscribes: nothing written).
     */
    openDebounced: (
      scope: TenantScope,
      event: OutboxEvent & { id: string; dedupeKey: string; createdAt: number; availableAt: number },
      basicTakes: BasicTriggers,
    ) =>
      engine.write((db) =>
        answer(() =>
          then(subscribersIn(db, scope.apiKeyId, event, basicTakes), (who): Maybe<'opened' | 'pending' | 'none'> => {
            if (!who.advanced && !who.basic) return 'none';
            // most changes find their event pending: one lookup. An insert that meets one pending all the same (another
            // unit of work opened it since, on PostgreSQL at READ COMMITTED) does nothing: the dedupe index's conflict
            return then(plain.pendingDebounced.first(db, [scope.apiKeyId, event.dedupeKey]), (pending) => {
              if (pending) return 'pending';
              const values: EventValues = [
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
              ];
              return then(plain.openDebounced.run(db, values), (opened) => (opened > 0 ? 'opened' : 'pending'));
            });
          }),
        ),
      ),

    // --- the dispatcher (every key) ---------------------------------------------------------------------------

    /**
     * Whether the delivery worker has anything to do from the start: a key with advanced webhooks or the basic
     * service on, or outbox events not yet handed over.
     */
    inUse: () => engine.read(async (db) => yes(await plain.inUse.first(db, []))),

    /** The writes the delivery worker asked for, in one step (the caller's unit of work). */
    applyDeliveryState: (writes: readonly DeliveryStateWrite[]) =>
      engine.write(async (db) => {
        for (const w of writes) {
          if (w.kind === 'dispatched') await dispatched.run(db, { id: w.eventId, at: w.at });
          else if (w.kind === 'failing')
            await db
              .update(e)
              .set({ failingSince: w.since })
              .where(and(eq(e.id, w.endpointId), isNull(e.failingSince)));
          else if (w.kind === 'recovered')
            await db
              .update(e)
              .set({ failingSince: null })
              .where(and(eq(e.id, w.endpointId), isNotNull(e.failingSince)));
          else await db.update(e).set({ disabled: true, disabledReason: w.reason, updatedAt: w.at }).where(eq(e.id, w.endpointId));
        }
      }),

    /**
     * The scopes of keys the server acts for (an event the dispatcher emits for a key): undefined for a key that is
     * gone. One statement; the Map in the order of the ids asked.
     */
    scopesOf: (apiKeyIds: readonly string[]) =>
      engine.read(async (db) => {
        const scopes = new Map<string, TenantScope>();
        const ids = [...new Set(apiKeyIds)];
        if (ids.length === 0) return scopes;
        const rows = await db.select({ id: k.id, workspaceId: k.workspaceId }).from(k).where(inArray(k.id, ids));
        const workspaces = new Map(rows.map((row) => [row.id, row.workspaceId]));
        for (const id of ids) {
          const workspaceId = workspaces.get(id);
          if (workspaceId !== undefined) scopes.set(id, tenantScope(id, workspaceId));
        }
        return scopes;
      }),

    /** Debounced events that fell due (100 at most), each with the scope of its key (the server acts for it). */
    dueDebounced: (now: number) =>
      engine.read(async (db) =>
        (await dueDebounced.all(db, { now })).map(({ row, workspaceId }) => ({
          row,
          scope: workspaceId === null ? undefined : tenantScope(row.apiKeyId, workspaceId),
        })),
      ),

    /** When the next debounced event falls due. */
    nextDebounced: () => engine.read(async (db) => (await nextDebounced.one(db))?.at),

    /** A debounced event waits longer. */
    postponeDebounced: (eventId: string, until: number) =>
      engine.write(async (db) => void (await db.update(ev).set({ availableAt: until }).where(eq(ev.id, eventId)))),

    /** A debounced event with nothing to send is closed (marked dispatched: the next change opens a new one). */
    dropDebounced: (eventId: string, now: number) => engine.write(async (db) => void (await dispatched.run(db, { id: eventId, at: now }))),

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
      engine.write(async (db) => {
        const who = await subscribersIn(db, scope.apiKeyId, event, basicTakes);
        if (!who.advanced && !who.basic) {
          await dispatched.run(db, { id: row.id, at: now });
          return false;
        }
        const { payload, basic } = build(who);
        // the payloads are JSON text, written as built: bound as they are (not through the columns' JSON encoding),
        // kept as text by SQLite and read as json by PostgreSQL (the column's type)
        await db
          .update(ev)
          .set({ payload: sql`${payload}`, basicPayload: sql`${basic}`, dedupeKey: null, availableAt: now })
          .where(and(eq(ev.apiKeyId, scope.apiKeyId), eq(ev.id, row.id)));
        if (followUp) {
          const values: EventValues = [
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
          ];
          await plain.insertEvent.run(db, values);
        }
        return true;
      }),

    /**
     * Whether the delivery worker's checkpointer runs (db/checkpointer.ts): while it does, this process's
     * connections' own automatic checkpoints are the rarer backstop. Nothing on PostgreSQL: it has no
     * per-connection WAL checkpoints for the application to coordinate (the server checkpoints its own WAL).
     */
    workerCheckpoints: (running: boolean) => {
      if (!sqlite) return;
      setCheckpointerRunning(sqlite.main.sqlite, running);
      setCheckpointerRunning(sqlite.writer.sqlite, running);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
