// The delivery worker's storage (webhooks/worker.ts, engine.ts): hearth.db through a query-only connection (events,
// endpoints, configuration, secrets) and webhooks.db, the worker's own, both synchronous and prepared once: the
// engine runs in its own thread, where nothing else waits on it, and a pass over a batch of events is one store
// transaction. The engine asks through DeliveryStoreQueries, whose answers are promises (PostgreSQL's store waits
// on its server); this one's are settled when returned. Plain SQL over better-sqlite3, no drizzle: the worker thread pays for every module it loads at
// start-up (see delivery-file.ts). Column names are those of db/schema.ts (hearth.db) and delivery-file.ts.
//
// So this store is not written once over engine.ts (issue 43) as the main thread's delivery reads are
// (webhook-deliveries.ts): a store over an Engine would bring drizzle, the schema and the SQLite dialect into this
// thread, measured at +0.5–0.8 s of start-up through tsx and +9 MB of heap, in a worker started with a 24 MB heap
// (webhooks/dispatcher.ts, WORKER_HEAP_MB); and its rows (booleans and JSON as SQLite stores them, 0/1 and text)
// are the contract the delivery engine reads, which drizzle would decode. Its statements are written once for both
// engines as plain SQL (deliveryStatements); PostgreSQL's store (pg/repos/webhook-delivery.ts) keeps what differs
// there: the lease of due deliveries (FOR UPDATE SKIP LOCKED) and the endpoint rule in PostgreSQL's JSON functions
// (endpointTakesEvent below).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { compileWithUnpeekedLimits } from '../bound-limit.ts';
import { startCheckpointer } from '../checkpointer.ts';
import { DELIVERY_CACHE_KIB, openDeliveryFile } from '../delivery-file.ts';

/**
 * Whether endpoint `e` takes an event: its type filter and its channels (the event's organization or document),
 * each stored as a JSON array, NULL or JSON null meaning no filter. Parameters: the event's type, organization id,
 * document id (NULL when it has none). The one rule for the worker's fan-out and the outbox's "would anyone
 * receive it" check (repos/webhooks.ts).
 */
export const ENDPOINT_TAKES_EVENT = `(e.filter_types IS NULL OR json_type(e.filter_types) = 'null' OR EXISTS(SELECT 1 FROM json_each(e.filter_types) WHERE value = ?))
  AND (e.channels IS NULL OR json_type(e.channels) = 'null' OR EXISTS(SELECT 1 FROM json_each(e.channels) WHERE value IN (?, ?)))`;

/**
 * Whether a JSON array column (`filter_types`, `channels`) names the value `cond` matches, in PostgreSQL's JSON
 * functions: SQLite's `EXISTS(SELECT 1 FROM json_each(col) WHERE value …)`. json_each walks an array's elements, an
 * object's values, or a scalar itself, and a JSON string's value is its text: the same here (only strings can match a
 * text parameter, as in SQLite, where a number's value is an integer, which never equals text).
 */
const namesPg = (column: string, cond: string) =>
  `(${column} IS NULL OR json_typeof(${column}) = 'null' OR EXISTS(SELECT 1 FROM json_array_elements(CASE json_typeof(${column})` +
  ` WHEN 'array' THEN ${column} WHEN 'object' THEN (SELECT coalesce(json_agg(o.value), '[]'::json) FROM json_each(${column}) o) ELSE json_build_array(${column}) END) v` +
  ` WHERE json_typeof(v) = 'string' AND (v #>> '{}') ${cond}))`;

/**
 * ENDPOINT_TAKES_EVENT on PostgreSQL, for endpoint `e`, with the parameters that hold the event's type, its
 * organization and its document: the one rule for the outbox's check (repos/webhooks.ts) and the delivery store's
 * fan-out (pg/repos/webhook-delivery.ts). Plain SQL text, as its twin above: json_each and json_array_elements differ.
 */
export const endpointTakesEvent = (type: string, organization: string, document: string) =>
  `${namesPg('e.filter_types', `= ${type}`)} AND ${namesPg('e.channels', `IN (${organization}, ${document})`)}`;

export interface EventRow {
  id: string;
  apiKeyId: string;
  type: string;
  organizationId: string | null;
  documentId: string | null;
  payload: string | null;
  basicPayload: string | null;
  /** The one endpoint the event is addressed to (a test event), or null: every endpoint that takes it. */
  targetEndpointId: string | null;
}
export interface EndpointRow {
  id: string;
  url: string;
  filterTypes: string | null;
  channels: string | null;
  disabled: number;
  rateLimit: number | null;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
}
export interface ConfigRow {
  isEnabled: number;
  encryptData: number;
  encodeData: number;
  publicKey: string;
  enableDataProtection: number;
}
export interface DeliveryRow {
  apiKeyId: string;
  eventId: string;
  target: string;
  url: string;
  body: string;
  status: string;
  attempts: number;
  nextAttemptAt: number | null;
  nextTrigger: string;
}
export interface BasicSettings {
  useWebhookService?: boolean;
  webhookServiceConfig?: {
    rawNotificationUrl?: string;
    processedNotificationUrl?: string;
    encodeData?: boolean;
    encryptData?: boolean;
    publicKey?: string;
    enableDataProtection?: boolean;
  };
}

const ENDPOINT = `id, url, CAST(filter_types AS text) AS "filterTypes", CAST(channels AS text) AS channels, CAST(disabled AS integer) AS disabled,
  rate_limit AS "rateLimit", secret_enc AS "secretEnc", previous_secret_enc AS "previousSecretEnc",
  previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince"`;
const DELIVERY = `api_key_id AS "apiKeyId", event_id AS "eventId", target, url, body, status, attempts, next_attempt_at AS "nextAttemptAt",
  next_trigger AS "nextTrigger"`;

/**
 * The delivery store's statements, written once for both engines: `?` placeholders (PostgreSQL's store numbers them),
 * booleans and JSON read through CAST as SQLite stores them (0/1, text), and ties in an order broken by creation and
 * then by key, which both engines can give (SQLite's rowid has no PostgreSQL counterpart). `main` statements read
 * hearth.db's tables, `store` ones the delivery tables (webhooks.db on SQLite; on PostgreSQL every table is in the
 * one database). `takes` is the endpoint rule in the engine's JSON functions (ENDPOINT_TAKES_EVENT, endpointTakesEvent),
 * with three `?`: the event's type, organization and document.
 */
export const deliveryStatements = (takes: string) =>
  ({
    // Debounced events (a dedupe key) are resolved into ready ones by the main thread (dispatcher.ts).
    readyEvents: {
      on: 'main',
      text: `SELECT id, api_key_id AS "apiKeyId", type, organization_id AS "organizationId", document_id AS "documentId", CAST(payload AS text) AS payload,
        CAST(basic_payload AS text) AS "basicPayload", target_endpoint_id AS "targetEndpointId"
        FROM webhook_events WHERE dispatched_at IS NULL AND dedupe_key IS NULL AND available_at <= ? ORDER BY available_at, created_at, id LIMIT ?`,
    },
    eventType: { on: 'main', text: 'SELECT type FROM webhook_events WHERE id = ?' },
    config: {
      on: 'main',
      text: `SELECT CAST(is_enabled AS integer) AS "isEnabled", CAST(encrypt_data AS integer) AS "encryptData", CAST(encode_data AS integer) AS "encodeData",
        public_key AS "publicKey", CAST(enable_data_protection AS integer) AS "enableDataProtection" FROM webhook_configs WHERE api_key_id = ?`,
    },
    endpoint: { on: 'main', text: `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE api_key_id = ? AND id = ?` },
    // through webhook_endpoints_key (api_key_id, created_at, id)
    takingEndpoints: {
      on: 'main',
      text: `SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE api_key_id = ? AND NOT disabled AND ${takes} ORDER BY created_at, id`,
    },
    keySettings: { on: 'main', text: 'SELECT CAST(settings AS text) AS settings FROM api_keys WHERE id = ?' },
    basicToken: { on: 'main', text: 'SELECT value_enc AS "valueEnc" FROM api_key_secrets WHERE api_key_id = ? AND name = ?' },
    insertDelivery: {
      on: 'store',
      text: `INSERT INTO webhook_deliveries (api_key_id, event_id, target, url, body, status, next_attempt_at, created_at)
        VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING`,
    },
    delivery: { on: 'store', text: `SELECT ${DELIVERY} FROM webhook_deliveries WHERE event_id = ? AND target = ?` },
    dueDeliveries: {
      on: 'store',
      text: `SELECT ${DELIVERY} FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
        ORDER BY next_attempt_at, created_at, event_id, target LIMIT ?`,
    },
    nextDelivery: { on: 'store', text: `SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1` },
    insertAttempt: {
      on: 'store',
      text: `INSERT INTO webhook_attempts (id, api_key_id, event_id, target, url, trigger, status, response_status_code, response, duration_ms, timestamp,
        request_headers, response_headers, response_headers_omitted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    },
    setSchedule: {
      on: 'store',
      text: 'UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, next_trigger = ? WHERE api_key_id = ? AND event_id = ? AND target = ?',
    },
    setAttempted: {
      on: 'store',
      text: 'UPDATE webhook_deliveries SET attempts = ?, last_attempt_at = ?, last_status_code = ? WHERE event_id = ? AND target = ?',
    },
    postpone: { on: 'store', text: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE event_id = ? AND target = ? AND status = 'pending'" },
    cancel: { on: 'store', text: "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE event_id = ? AND target = ?" },
    cancelTarget: {
      on: 'store',
      text: "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE api_key_id = ? AND target = ? AND status = 'pending'",
    },
    recover: {
      on: 'store',
      text: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, next_trigger = 'recover'
        WHERE api_key_id = ? AND target = ? AND status = 'failed' AND created_at >= ?`,
    },
  }) as const satisfies Record<string, { on: 'main' | 'store'; text: string }>;

export type DeliveryStatement = keyof ReturnType<typeof deliveryStatements>;

/** How an engine runs the statements above: rows, or how many rows a write changed; and its store transactions. */
export interface DeliveryRunner {
  all<R>(statement: DeliveryStatement, values: readonly unknown[]): Promise<R[]>;
  run(statement: DeliveryStatement, values: readonly unknown[]): Promise<number>;
  storeTransaction: DeliveryStoreQueries['storeTransaction'];
  takeDueDeliveries: DeliveryStoreQueries['takeDueDeliveries'];
}

/** The delivery store over an engine's runner: each question one statement of deliveryStatements. */
export function deliveryQueriesOver(r: DeliveryRunner): DeliveryStoreQueries {
  const one = async <R>(statement: DeliveryStatement, values: readonly unknown[]) => (await r.all<R>(statement, values))[0];
  const write = async (statement: DeliveryStatement, values: readonly unknown[]) => void (await r.run(statement, values));
  return {
    storeTransaction: r.storeTransaction,
    takeDueDeliveries: r.takeDueDeliveries,
    readyEvents: (now, limit) => r.all('readyEvents', [now, limit]),
    eventType: (eventId) => one('eventType', [eventId]),
    config: (apiKeyId) => one('config', [apiKeyId]),
    endpoint: (apiKeyId, endpointId) => one('endpoint', [apiKeyId, endpointId]),
    takingEndpoints: (apiKeyId, type, organizationId, documentId) => r.all('takingEndpoints', [apiKeyId, type, organizationId, documentId]),
    keySettings: (apiKeyId) => one('keySettings', [apiKeyId]),
    basicToken: (apiKeyId, name) => one('basicToken', [apiKeyId, name]),
    insertDelivery: (...values) => write('insertDelivery', values),
    delivery: (eventId, target) => one('delivery', [eventId, target]),
    dueDeliveries: (now, limit) => r.all('dueDeliveries', [now, limit]),
    nextDelivery: () => one('nextDelivery', []),
    insertAttempt: (...values) => write('insertAttempt', values),
    setSchedule: (...values) => write('setSchedule', values),
    setAttempted: (...values) => write('setAttempted', values),
    postpone: (...values) => write('postpone', values),
    cancel: (...values) => write('cancel', values),
    cancelTarget: (...values) => write('cancelTarget', values),
    recover: (...values) => r.run('recover', values),
  };
}

/** An attempt's columns, in the order `insertAttempt` takes them (see delivery-schema.ts's webhookAttempts). */
export type AttemptValues = [
  id: string,
  apiKeyId: string,
  eventId: string,
  target: string,
  url: string,
  trigger: string,
  status: string,
  responseStatusCode: number | null,
  response: string,
  durationMs: number,
  timestamp: number,
  requestHeaders: string,
  responseHeaders: string | null,
  responseHeadersOmitted: number,
];

/**
 * The delivery engine's questions and writes (webhooks/engine.ts), by name: the contract of every delivery store.
 * Every answer is a promise, so that a store may wait on a server (PostgreSQL: pg/repos/webhook-delivery.ts);
 * SQLite's answers are ready at once (statements run synchronously, results wrapped). Reads of the outbox,
 * endpoints, configuration and secrets are the main database's; deliveries and attempts are the store's.
 */
export interface DeliveryStoreQueries {
  /**
   * Runs the store writes of one step in one transaction (one commit): every store call made while `work` runs
   * joins it. Rolled back when `work` throws. Not nested: the engine runs one such step at a time.
   */
  storeTransaction<T>(work: () => Promise<T>): Promise<T>;
  /** Events ready to fan out (not dispatched, not debouncing, available by `now`), oldest first. */
  readyEvents(now: number, limit: number): Promise<EventRow[]>;
  eventType(eventId: string): Promise<{ type: string } | undefined>;
  config(apiKeyId: string): Promise<ConfigRow | undefined>;
  endpoint(apiKeyId: string, endpointId: string): Promise<EndpointRow | undefined>;
  /** The live endpoints that take an event (api key, type, organization, document), by creation. */
  takingEndpoints(apiKeyId: string, type: string, organizationId: string | null, documentId: string | null): Promise<EndpointRow[]>;
  keySettings(apiKeyId: string): Promise<{ settings: string } | undefined>;
  basicToken(apiKeyId: string, name: string): Promise<{ valueEnc: string } | undefined>;
  /** A pending delivery, unless the event already has one for this target. */
  insertDelivery(apiKeyId: string, eventId: string, target: string, url: string, body: string, nextAttemptAt: number, createdAt: number): Promise<void>;
  delivery(eventId: string, target: string): Promise<DeliveryRow | undefined>;
  /** Pending deliveries due by `now`, the earliest first. */
  dueDeliveries(now: number, limit: number): Promise<DeliveryRow[]>;
  /**
   * The deliveries this engine sends now: pending, due by `now`, the earliest first, but those of `skip` (the
   * `eventId|target` keys it has in flight). Where several engines share the store (PostgreSQL), each is taken until
   * `leaseUntil`: its `next_attempt_at` moves there in the same statement (`FOR UPDATE SKIP LOCKED`), so no other
   * engine takes it before then, and the row answered carries it; an engine that dies holding one lets it fall due
   * again then. SQLite's store has one engine (the worker is webhooks.db's only writer): it answers as `dueDeliveries`.
   */
  takeDueDeliveries(now: number, limit: number, leaseUntil: number, skip: readonly string[]): Promise<DeliveryRow[]>;
  /** When the earliest pending delivery falls due. */
  nextDelivery(): Promise<{ at: number } | undefined>;
  insertAttempt(...values: AttemptValues): Promise<void>;
  setSchedule(status: string, nextAttemptAt: number | null, trigger: string, apiKeyId: string, eventId: string, target: string): Promise<void>;
  setAttempted(attempts: number, at: number, statusCode: number | null, eventId: string, target: string): Promise<void>;
  postpone(until: number, eventId: string, target: string): Promise<void>;
  cancel(eventId: string, target: string): Promise<void>;
  /** Cancels the target's pending deliveries. */
  cancelTarget(apiKeyId: string, target: string): Promise<void>;
  /** Puts the target's deliveries that failed since `since` back on a fresh schedule; how many. */
  recover(now: number, apiKeyId: string, target: string, since: number): Promise<number>;
}

/**
 * The SQLite delivery store: each call one prepared statement (compiled once), run at once (the promise is already
 * settled when it is returned). A store transaction is BEGIN IMMEDIATE … COMMIT on webhooks.db around `work`;
 * transactions queue one behind the other (the connection holds one at a time), and a call made while one is open
 * joins it, as on one SQLite connection any statement does.
 */
export function deliveryQueries(main: Database.Database, store: Database.Database): DeliveryStoreQueries {
  const statements = deliveryStatements(ENDPOINT_TAKES_EVENT);
  const prepared = Object.fromEntries(
    Object.entries(statements).map(([name, { on, text }]) => [name, (on === 'main' ? main : store).prepare<unknown[]>(text)]),
  ) as Record<DeliveryStatement, Database.Statement<unknown[]>>;
  const begin = store.prepare('BEGIN IMMEDIATE');
  const commit = store.prepare('COMMIT');
  const rollback = store.prepare('ROLLBACK');
  let queue: Promise<unknown> = Promise.resolve();
  async function inTransaction<T>(work: () => Promise<T>): Promise<T> {
    begin.run();
    try {
      const result = await work();
      commit.run();
      return result;
    } catch (error) {
      // a failed COMMIT (or a statement error that SQLite answered with a rollback) may have ended it already
      if (store.inTransaction) rollback.run();
      throw error;
    }
  }
  const all = async <R>(statement: DeliveryStatement, values: readonly unknown[]) => prepared[statement].all(...values) as R[];
  return deliveryQueriesOver({
    all,
    run: async (statement, values) => prepared[statement].run(...values).changes,
    storeTransaction<T>(work: () => Promise<T>): Promise<T> {
      const result = queue.then(() => inTransaction(work));
      queue = result.catch(() => undefined);
      return result;
    },
    // one engine takes from webhooks.db (the worker is its only writer): no lease, the due ones but those in flight
    takeDueDeliveries: async (now, limit, _leaseUntil, skip) => {
      const due = await all<DeliveryRow>('dueDeliveries', [now, limit + skip.length]);
      if (skip.length === 0) return due;
      const skipped = new Set(skip);
      return due.filter((d) => !skipped.has(`${d.eventId}|${d.target}`)).slice(0, limit);
    },
  });
}

/**
 * The worker's connections: hearth.db query-only (with its checkpointer: a query-only connection may checkpoint,
 * copying the log changes no content) and webhooks.db, created or upgraded.
 */
export function openDeliveryWorkerStorage(dataDir: string, databaseFile: string, onCheckpointError: (error: Error) => void) {
  const main = new Database(join(dataDir, databaseFile));
  main.pragma('busy_timeout = 5000');
  main.pragma('query_only = ON');
  // Its reads are the outbox's pending tail and a few configuration rows (see delivery-file.ts on the cache bound).
  main.pragma(`cache_size = -${DELIVERY_CACHE_KIB}`);
  compileWithUnpeekedLimits(main);
  const checkpointer = startCheckpointer(main, { onError: onCheckpointError });
  const store = openDeliveryFile(dataDir, { readOnly: false });
  return {
    queries: deliveryQueries(main, store),
    stopCheckpointer: () => checkpointer.stop(),
    close() {
      if (store.open) store.close();
      if (main.open) main.close();
    },
  };
}
