// The delivery engine's store on PostgreSQL (webhooks/engine.ts): the same questions and writes as SQLite's
// (../../repos/webhook-delivery.ts, whose DeliveryStoreQueries is the contract; test/pg/webhook-delivery.test.ts
// asks both the same and compares every answer). On SQLite the deliveries and attempts have a file of their own
// (webhooks.db) beside hearth.db; here they are tables of the one database (pg/schema.ts converts
// delivery-schema.ts with the rest), so every instance sees every delivery.
//
// Rows are answered as SQLite's store answers them: booleans as 0/1, JSON columns as their text (`json` keeps it as
// written), bigint as numbers (the engine's parser). Statements are SQL text run as named statements (prepared once
// per connection), as SQLite's are prepared once. Ties in the order of ready events and due deliveries are broken
// by creation and then by key here; SQLite breaks them by rowid (insertion order), which PostgreSQL has no
// counterpart of.
//
// A store transaction is a unit of work of the engine (READ COMMITTED): every call made while `work` runs joins it
// (async context). Calls outside one are statements of their own.
//
// Several engines (one per instance) share these tables: an engine takes the deliveries it sends with a lease
// (takeDueDeliveries: next_attempt_at moved to the lease's end, FOR UPDATE SKIP LOCKED), so no two send one delivery,
// and one that died holding some lets them fall due again when the lease ends. Ready events need no lease: an event
// fanned out twice finds its deliveries there (the primary key, ON CONFLICT DO NOTHING), and is marked dispatched twice.
import {
  type AttemptValues,
  type ConfigRow,
  type DeliveryRow,
  type DeliveryStoreQueries,
  type EndpointRow,
  type EventRow,
  endpointTakesEvent,
} from '../../repos/webhook-delivery.ts';
import { createPgEngine, type PgDb, type PgEngine } from '../engine.ts';

const ENDPOINT = `id, url, filter_types::text AS "filterTypes", channels::text AS channels, disabled::int AS disabled, rate_limit AS "rateLimit",
  secret_enc AS "secretEnc", previous_secret_enc AS "previousSecretEnc", previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince"`;
const DELIVERY = `api_key_id AS "apiKeyId", event_id AS "eventId", target, url, body, status, attempts, next_attempt_at AS "nextAttemptAt", next_trigger AS "nextTrigger"`;

const STATEMENTS = {
  // Debounced events (a dedupe key) are resolved into ready ones by the main thread (dispatcher.ts).
  readyEvents: `SELECT id, api_key_id AS "apiKeyId", type, organization_id AS "organizationId", document_id AS "documentId", payload::text AS payload,
    basic_payload::text AS "basicPayload", target_endpoint_id AS "targetEndpointId"
    FROM webhook_events WHERE dispatched_at IS NULL AND dedupe_key IS NULL AND available_at <= $1 ORDER BY available_at, created_at, id LIMIT $2`,
  eventType: 'SELECT type FROM webhook_events WHERE id = $1',
  config: `SELECT is_enabled::int AS "isEnabled", encrypt_data::int AS "encryptData", encode_data::int AS "encodeData", public_key AS "publicKey",
    enable_data_protection::int AS "enableDataProtection" FROM webhook_configs WHERE api_key_id = $1`,
  endpoint: `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE api_key_id = $1 AND id = $2`,
  // SQLite's plan reads these through webhook_endpoints_key (api_key_id, created_at, id): ties in created_at by id
  takingEndpoints: `SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE api_key_id = $1 AND NOT disabled AND ${endpointTakesEvent('$2', '$3', '$4')}
    ORDER BY created_at, id`,
  keySettings: 'SELECT settings::text AS settings FROM api_keys WHERE id = $1',
  basicToken: 'SELECT value_enc AS "valueEnc" FROM api_key_secrets WHERE api_key_id = $1 AND name = $2',
  insertDelivery: `INSERT INTO webhook_deliveries (api_key_id, event_id, target, url, body, status, next_attempt_at, created_at)
    VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7) ON CONFLICT DO NOTHING`,
  delivery: `SELECT ${DELIVERY} FROM webhook_deliveries WHERE event_id = $1 AND target = $2`,
  dueDeliveries: `SELECT ${DELIVERY} FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
    ORDER BY next_attempt_at, created_at, event_id, target LIMIT $2`,
  /**
   * Due deliveries taken until $3 (see DeliveryStoreQueries.takeDueDeliveries): rows another engine is taking are
   * skipped, and one it took meanwhile is due no more when its lock is granted (READ COMMITTED reads the row again).
   */
  takeDueDeliveries: `UPDATE webhook_deliveries d SET next_attempt_at = $3
    FROM (SELECT event_id, target, next_attempt_at FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= $1 AND NOT (event_id || '|' || target) = ANY ($4::text[])
      ORDER BY next_attempt_at, created_at, event_id, target LIMIT $2 FOR UPDATE SKIP LOCKED) due
    WHERE d.event_id = due.event_id AND d.target = due.target
    RETURNING d.api_key_id AS "apiKeyId", d.event_id AS "eventId", d.target, d.url, d.body, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt",
      d.next_trigger AS "nextTrigger", due.next_attempt_at AS "dueAt", d.created_at AS "createdAt"`,
  nextDelivery: `SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1`,
  insertAttempt: `INSERT INTO webhook_attempts (id, api_key_id, event_id, target, url, trigger, status, response_status_code, response, duration_ms, timestamp,
    request_headers, response_headers, response_headers_omitted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
  setSchedule: 'UPDATE webhook_deliveries SET status = $1, next_attempt_at = $2, next_trigger = $3 WHERE api_key_id = $4 AND event_id = $5 AND target = $6',
  setAttempted: 'UPDATE webhook_deliveries SET attempts = $1, last_attempt_at = $2, last_status_code = $3 WHERE event_id = $4 AND target = $5',
  postpone: "UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE event_id = $2 AND target = $3 AND status = 'pending'",
  cancel: "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE event_id = $1 AND target = $2",
  cancelTarget: "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE api_key_id = $1 AND target = $2 AND status = 'pending'",
  recover: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $1, next_trigger = 'recover'
    WHERE api_key_id = $2 AND target = $3 AND status = 'failed' AND created_at >= $4`,
} as const;

type Statement = keyof typeof STATEMENTS;
/** A taken delivery, with what it is ordered by. */
type Taken = DeliveryRow & { dueAt: number; createdAt: number };
/** Text order as the database's C collation (and SQLite's BINARY) compare ids (ASCII). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Runs one of the statements above as a named statement on `db`'s connection (or the pool). */
async function run<R extends object>(db: PgDb, statement: Statement, values: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
  const result = await db.$client.query<R>({ name: `hearth-delivery-${statement}`, text: STATEMENTS[statement], values });
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** The delivery store on PostgreSQL: the main tables (events, endpoints, configuration, secrets) and the delivery tables of one database. */
export function deliveryQueriesPg(engine: PgEngine): DeliveryStoreQueries {
  const all = <R extends object>(statement: Statement, values: unknown[]) => engine.read(async (db) => (await run<R>(db, statement, values)).rows);
  const one = async <R extends object>(statement: Statement, values: unknown[]) => (await all<R>(statement, values))[0];
  const write = (statement: Statement, values: unknown[]) => engine.write(async (db) => (await run(db, statement, values)).rowCount);
  return {
    storeTransaction: (work) => engine.transaction(work),
    readyEvents: (now, limit) => all<EventRow>('readyEvents', [now, limit]),
    eventType: (eventId) => one<{ type: string }>('eventType', [eventId]),
    config: (apiKeyId) => one<ConfigRow>('config', [apiKeyId]),
    endpoint: (apiKeyId, endpointId) => one<EndpointRow>('endpoint', [apiKeyId, endpointId]),
    takingEndpoints: (apiKeyId, type, organizationId, documentId) => all<EndpointRow>('takingEndpoints', [apiKeyId, type, organizationId, documentId]),
    keySettings: (apiKeyId) => one<{ settings: string }>('keySettings', [apiKeyId]),
    basicToken: (apiKeyId, name) => one<{ valueEnc: string }>('basicToken', [apiKeyId, name]),
    insertDelivery: async (apiKeyId, eventId, target, url, body, nextAttemptAt, createdAt) =>
      void (await write('insertDelivery', [apiKeyId, eventId, target, url, body, nextAttemptAt, createdAt])),
    delivery: (eventId, target) => one<DeliveryRow>('delivery', [eventId, target]),
    dueDeliveries: (now, limit) => all<DeliveryRow>('dueDeliveries', [now, limit]),
    takeDueDeliveries: async (now, limit, leaseUntil, skip) => {
      const taken = await engine.write(async (db) => (await run<Taken>(db, 'takeDueDeliveries', [now, limit, leaseUntil, skip])).rows);
      // RETURNING keeps no order: the order they were due in, as dueDeliveries answers
      taken.sort((x, y) => x.dueAt - y.dueAt || x.createdAt - y.createdAt || compare(x.eventId, y.eventId) || compare(x.target, y.target));
      return taken.map(({ dueAt: _due, createdAt: _created, ...row }) => row);
    },
    nextDelivery: () => one<{ at: number }>('nextDelivery', []),
    insertAttempt: async (...values: AttemptValues) => void (await write('insertAttempt', values)),
    setSchedule: async (status, nextAttemptAt, trigger, apiKeyId, eventId, target) =>
      void (await write('setSchedule', [status, nextAttemptAt, trigger, apiKeyId, eventId, target])),
    setAttempted: async (attempts, at, statusCode, eventId, target) => void (await write('setAttempted', [attempts, at, statusCode, eventId, target])),
    postpone: async (until, eventId, target) => void (await write('postpone', [until, eventId, target])),
    cancel: async (eventId, target) => void (await write('cancel', [eventId, target])),
    cancelTarget: async (apiKeyId, target) => void (await write('cancelTarget', [apiKeyId, target])),
    recover: (now, apiKeyId, target, since) => write('recover', [now, apiKeyId, target, since]),
  };
}

/**
 * The delivery worker's storage on PostgreSQL: a small pool of its own (the worker is a thread of its own, with its
 * own event loop) over the one database. No checkpointer: PostgreSQL checkpoints itself.
 */
export function openDeliveryWorkerStoragePg(url: string) {
  const engine = createPgEngine({ url, poolSize: 4 });
  return {
    queries: deliveryQueriesPg(engine),
    stopCheckpointer: () => undefined,
    close: () => engine.close(),
  };
}
