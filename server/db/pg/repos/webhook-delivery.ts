// The delivery engine's store on PostgreSQL (webhooks/engine.ts): the statements SQLite's store runs, written once
// (../../repos/webhook-delivery.ts, deliveryStatements; DeliveryStoreQueries is the contract;
// test/pg/webhook-delivery.test.ts asks both the same and compares every answer), run here as named statements. On SQLite the deliveries and attempts have a file of their own
// (webhooks.db) beside hearth.db; here they are tables of the one database (pg/schema.ts converts
// delivery-schema.ts with the rest), so every instance sees every delivery.
//
// Rows are answered as SQLite's store answers them: booleans as 0/1 and JSON columns as their text (the statements'
// CASTs; `json` keeps it as written), bigint as numbers (the engine's parser). Named statements are prepared once
// per connection, as SQLite's are prepared once.
//
// A store transaction is a unit of work of the engine (READ COMMITTED): every call made while `work` runs joins it
// (async context). Calls outside one are statements of their own.
//
// Several engines (one per instance) share these tables: an engine takes the deliveries it sends with a lease
// (takeDueDeliveries: next_attempt_at moved to the lease's end, FOR UPDATE SKIP LOCKED), so no two send one delivery,
// and one that died holding some lets them fall due again when the lease ends. Ready events need no lease: an event
// fanned out twice finds its deliveries there (the primary key, ON CONFLICT DO NOTHING), and is marked dispatched twice.
import {
  type DeliveryRow,
  type DeliveryStatement,
  type DeliveryStoreQueries,
  deliveryQueriesOver,
  deliveryStatements,
  endpointTakesEvent,
} from '../../repos/webhook-delivery.ts';
import { createPgEngine, type PgDb, type PgEngine } from '../engine.ts';

/** The statements with PostgreSQL's numbered parameters. */
const STATEMENTS = Object.fromEntries(
  Object.entries(deliveryStatements(endpointTakesEvent('?', '?', '?'))).map(([name, { text }]) => {
    let n = 0;
    return [name, text.replace(/\?/g, () => `$${++n}`)];
  }),
) as Record<DeliveryStatement, string>;

/**
 * Due deliveries taken until $3 (see DeliveryStoreQueries.takeDueDeliveries), but the keys of $4: rows another engine
 * is taking are skipped, and one it took meanwhile is due no more when its lock is granted (READ COMMITTED reads the
 * row again).
 */
const TAKE_DUE_DELIVERIES = `UPDATE webhook_deliveries d SET next_attempt_at = $3
  FROM (SELECT event_id, target, next_attempt_at FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= $1 AND NOT (event_id || '|' || target) = ANY ($4::text[])
    ORDER BY next_attempt_at, created_at, event_id, target LIMIT $2 FOR UPDATE SKIP LOCKED) due
  WHERE d.event_id = due.event_id AND d.target = due.target
  RETURNING d.api_key_id AS "apiKeyId", d.event_id AS "eventId", d.target, d.url, d.body, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt",
    d.next_trigger AS "nextTrigger", due.next_attempt_at AS "dueAt", d.created_at AS "createdAt"`;

/** A taken delivery, with what it is ordered by. */
type Taken = DeliveryRow & { dueAt: number; createdAt: number };
/** Text order as the database's C collation (and SQLite's BINARY) compare ids (ASCII). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Runs a named statement on `db`'s connection (or the pool). */
async function run<R extends object>(db: PgDb, name: string, text: string, values: readonly unknown[]) {
  const result = await db.$client.query<R>({ name: `hearth-delivery-${name}`, text, values: [...values] });
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** The delivery store on PostgreSQL: the main tables (events, endpoints, configuration, secrets) and the delivery tables of one database. */
export function deliveryQueriesPg(engine: PgEngine): DeliveryStoreQueries {
  return deliveryQueriesOver({
    all: <R>(statement: DeliveryStatement, values: readonly unknown[]) =>
      engine.read(async (db) => (await run<R & object>(db, statement, STATEMENTS[statement], values)).rows as R[]),
    run: (statement, values) => engine.write(async (db) => (await run(db, statement, STATEMENTS[statement], values)).rowCount),
    storeTransaction: (work) => engine.transaction(work),
    takeDueDeliveries: async (now, limit, leaseUntil, skip) => {
      const taken = await engine.write(async (db) => (await run<Taken>(db, 'takeDueDeliveries', TAKE_DUE_DELIVERIES, [now, limit, leaseUntil, skip])).rows);
      // RETURNING keeps no order: the order they were due in, as dueDeliveries answers
      taken.sort((x, y) => x.dueAt - y.dueAt || x.createdAt - y.createdAt || compare(x.eventId, y.eventId) || compare(x.target, y.target));
      return taken.map(({ dueAt: _due, createdAt: _created, ...row }) => row);
    },
  });
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
