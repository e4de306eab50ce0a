// Delivery state (one row per event and target, one per attempt) lives in its own SQLite file, `webhooks.db`,
// written only by the delivery worker thread (repos/webhook-delivery.ts). Requests write `hearth.db`; deliveries
// write this file: the two never wait on each other's write lock, and delivery writes never grow the WAL that a
// request's commit may have to checkpoint. The outbox itself stays in `hearth.db`, written in the unit of work of
// the change (DESIGN §3.6, repos/webhooks.ts). There are no foreign keys to `hearth.db` (SQLite has none across
// files); code that deletes an outbox event or an API key must delete the matching rows here too (db/tenancy.ts).
// On PostgreSQL the delivery tables are tables of the one database (pg/schema.ts converts delivery-schema.ts with
// the rest), written by the worker's store there (pg/repos/webhook-delivery.ts).
//
// The main thread's reads of delivery state (the attempts list, replay targets, and, at the end of this file,
// deliveryInspection: the admin's gauges and views) are written once for both engines (issue 43) over a
// DeliveryEngine: on SQLite webhooks.db's one read-only connection, on PostgreSQL the engine of the one database.
// test/pg/webhook-delivery.test.ts asks both the same and compares every answer.
import type Database from 'better-sqlite3';
import { and, count as countOf, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { openDeliveryFile } from '../delivery-file.ts';
import { webhookAttempts, webhookDeliveries } from '../delivery-schema.ts';
import type { Engine, Prepared, Q, RowOf, Statement } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { TenantScope } from '../scope.ts';

export { DELIVERY_FILE } from '../delivery-file.ts';

const deliverySchema = { webhookDeliveries, webhookAttempts };
export type DeliveryDb = BetterSQLite3Database<typeof deliverySchema>;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export interface DeliveryStore {
  db: DeliveryDb;
  sqlite: Database.Database;
  close(): void;
}

/** `webhooks.db` opened (created, upgraded, legacy rows moved in) and typed for drizzle queries. */
export function openDeliveryStore(dataDir: string, options: { readOnly: boolean; legacyFrom?: Database.Database }): DeliveryStore {
  const sqlite = openDeliveryFile(dataDir, options);
  return {
    db: drizzle(sqlite, { schema: deliverySchema }),
    sqlite,
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

/** The delivery tables by the source's names (delivery-schema.ts): on PostgreSQL their conversion, with the same properties and row types. */
export type DeliveryTables = typeof deliverySchema;

/**
 * The engine the main thread's delivery reads run on: the part of engine.ts's Engine they use (they only read), over
 * the delivery tables. SQLite's reads go to webhooks.db's read-only connection, whichever connection of hearth.db
 * the caller is on (a unit of work of hearth.db does not reach webhooks.db: the worker is its only writer);
 * PostgreSQL's are the one database's, in the caller's unit of work if any.
 */
export interface DeliveryEngine {
  readonly kind: Engine['kind'];
  readonly t: DeliveryTables;
  read<T>(statements: (db: Q) => Promise<T>): Promise<T>;
  /** engine.ts's `prepare`, its builder given the delivery tables. */
  prepare<S extends Statement>(name: string, build: (db: Q, t: DeliveryTables) => S): Prepared<RowOf<S>>;
}

/**
 * The delivery engine over `one`, the engine of the main database: on PostgreSQL that engine itself (its tables hold
 * the delivery tables' conversion); on SQLite the statements go to `file`, webhooks.db's connection, prepared by
 * `one`'s dialect (sqliteDialect prepares a statement once per connection it is run on, whichever that is).
 */
export function deliveryEngine(one: Engine, file?: DeliveryStore): DeliveryEngine {
  if (one.kind === 'postgres') {
    const t = one.t as unknown as Partial<DeliveryTables>;
    if (!t.webhookDeliveries || !t.webhookAttempts) throw new Error('the PostgreSQL engine has no delivery tables');
    const tables = { webhookDeliveries: t.webhookDeliveries, webhookAttempts: t.webhookAttempts };
    return { kind: one.kind, t: tables, read: one.read, prepare: (name, build) => one.prepare(name, (db) => build(db, tables)) };
  }
  if (!file) throw new Error("SQLite's delivery reads need webhooks.db's connection");
  const db = file.db as unknown as Q;
  return {
    kind: one.kind,
    t: deliverySchema,
    read: (statements) => statements(db),
    prepare: (name, build) => one.prepare(name, (on) => build(on, deliverySchema)),
  };
}

/** The filters of the attempts list. */
export interface AttemptFilters {
  endpointId?: string | undefined;
  messageId?: string | undefined;
  status?: AttemptRow['status'] | undefined;
}

/** The key's delivery state, read on the main thread's read-only connection (SQLite) or the one database (PostgreSQL). */
export function webhookDeliveriesRepo(engine: DeliveryEngine) {
  const a = engine.t.webhookAttempts;
  const p = sql.placeholder;
  /** A message's targets, in the primary key's order (event_id, target: the index SQLite reads, no sort); or that one target. */
  const targets = (one: boolean) =>
    engine.prepare(one ? 'deliveries.target' : 'deliveries.targets', (db, t) =>
      db
        .select({ target: t.webhookDeliveries.target })
        .from(t.webhookDeliveries)
        .where(
          and(
            eq(t.webhookDeliveries.apiKeyId, p('apiKeyId')),
            eq(t.webhookDeliveries.eventId, p('eventId')),
            one ? eq(t.webhookDeliveries.target, p('target')) : undefined,
          ),
        )
        .orderBy(t.webhookDeliveries.target),
    );
  const targetsOf = { all: targets(false), one: targets(true) };
  return {
    /** Attempts, newest first, after the (timestamp, id) cursor: `limit` rows at most. */
    attempts: (scope: TenantScope, filters: AttemptFilters, after: Cursor | null, limit: number) =>
      engine.read(async (db) => {
        const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, scope.apiKeyId), keysetAfter(a.timestamp, a.id, after, true)];
        if (filters.endpointId) conditions.push(eq(a.target, filters.endpointId));
        if (filters.messageId) conditions.push(eq(a.eventId, filters.messageId));
        if (filters.status) conditions.push(eq(a.status, filters.status));
        return db
          .select()
          .from(a)
          .where(and(...conditions))
          .orderBy(desc(a.timestamp), desc(a.id))
          .limit(limit);
      }),

    /** The targets a message was delivered to (or that one target, when it was). */
    targetsOf: (scope: TenantScope, messageId: string, target?: string) =>
      engine.read(async (db) => {
        const values = { apiKeyId: scope.apiKeyId, eventId: messageId };
        const rows = target ? await targetsOf.one.all(db, { ...values, target }) : await targetsOf.all.all(db, values);
        return rows.map((r) => r.target);
      }),
  };
}

/** Every delivery read of the main thread: the attempts list and replay targets, and the admin's (deliveryInspection, below). */
export function deliveryReads(engine: DeliveryEngine) {
  return { ...webhookDeliveriesRepo(engine), ...deliveryInspection(engine) };
}

// --- the admin's reads of delivery state (inspection's delivery part) -----------------------------------------

export interface DeliveryLogFilters {
  endpointId?: string | undefined;
  messageId?: string | undefined;
  status?: 'pending' | 'succeeded' | 'failed' | undefined;
}
/** A row of the delivery log: a delivery's state, without what its next attempt is recorded as. */
export type DeliveryLogRow = Omit<DeliveryRow, 'nextTrigger'>;
export interface DeliveryCounts {
  /** Every attempt failed: given up. */
  failed: number;
  /** The last attempt failed and another is scheduled. */
  retrying: number;
  /** Not tried yet. */
  pending: number;
}
/** Grouped counts (status, whether tried) as DeliveryCounts; both engines' `counts` end here. */
export function deliveryCounts(rows: Array<{ status: string; retrying: number | boolean; n: number }>): DeliveryCounts {
  const out: DeliveryCounts = { failed: 0, retrying: 0, pending: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    if (r.status === 'failed') out.failed += n;
    else if (r.status === 'pending') {
      if (r.retrying === true || Number(r.retrying) === 1) out.retrying += n;
      else out.pending += n;
    }
  }
  return out;
}

/**
 * The admin's reads of delivery state: the deliveries' gauges and, for one key, what a delivery sent and an attempt's
 * headers. Written once for both engines over the delivery engine (webhook-deliveries.ts): on SQLite `webhooks.db`
 * (its own file, not behind the engine of hearth.db; read only), on PostgreSQL the delivery tables of the one database.
 */
export function deliveryInspection(engine: DeliveryEngine) {
  const w = engine.t.webhookDeliveries;
  /** The log's columns: every one but nextTrigger (DeliveryLogRow). */
  const logColumns = {
    apiKeyId: w.apiKeyId,
    eventId: w.eventId,
    target: w.target,
    url: w.url,
    body: w.body,
    status: w.status,
    attempts: w.attempts,
    nextAttemptAt: w.nextAttemptAt,
    lastAttemptAt: w.lastAttemptAt,
    lastStatusCode: w.lastStatusCode,
    createdAt: w.createdAt,
  };
  const p = sql.placeholder;
  /** The server's gauge, asked at every scrape of /metrics. */
  const withStatus = engine.prepare('deliveries.withStatus', (db, t) =>
    db
      .select({ n: countOf() })
      .from(t.webhookDeliveries)
      .where(eq(t.webhookDeliveries.status, p('status'))),
  );
  const delivery = engine.prepare('deliveries.delivery', (db, t) => {
    const d = t.webhookDeliveries;
    return db
      .select({ url: d.url, body: d.body, status: d.status, attempts: d.attempts })
      .from(d)
      .where(and(eq(d.apiKeyId, p('apiKeyId')), eq(d.eventId, p('eventId')), eq(d.target, p('target'))));
  });
  const headers = engine.prepare('deliveries.attemptHeaders', (db, t) => {
    const a = t.webhookAttempts;
    return db
      .select({
        eventId: a.eventId,
        target: a.target,
        timestamp: a.timestamp,
        requestHeaders: a.requestHeaders,
        responseHeaders: a.responseHeaders,
        omitted: a.responseHeadersOmitted,
      })
      .from(a)
      .where(and(eq(a.apiKeyId, p('apiKeyId')), eq(a.id, p('id'))));
  });
  return {
    /** Deliveries with a status (pending: waiting for an attempt; failed: every attempt failed), every key's: the server's gauge. */
    withStatus: (status: 'pending' | 'failed'): Promise<number> => engine.read(async (db) => (await withStatus.one(db, { status }))?.n ?? 0),

    /**
     * The delivery log (issue 44): the newest deliveries of the given keys (a workspace's), optionally of one endpoint
     * or status, with their state, attempts and next retry time. The keys' ids come from the caller's WorkspaceScope.
     */
    async log(apiKeyIds: readonly string[], filters: DeliveryLogFilters, limit: number): Promise<DeliveryLogRow[]> {
      if (apiKeyIds.length === 0) return [];
      const conditions = [inArray(w.apiKeyId, [...apiKeyIds])];
      if (filters.endpointId) conditions.push(eq(w.target, filters.endpointId));
      if (filters.messageId) conditions.push(eq(w.eventId, filters.messageId));
      if (filters.status) conditions.push(eq(w.status, filters.status));
      return engine.read((db) =>
        db
          .select(logColumns)
          .from(w)
          .where(and(...conditions))
          .orderBy(desc(w.createdAt))
          .limit(limit),
      );
    },

    /** The given keys' deliveries by state: failed for good, failing (the last attempt failed, a retry is due), waiting. */
    async counts(apiKeyIds: readonly string[]): Promise<DeliveryCounts> {
      if (apiKeyIds.length === 0) return { failed: 0, retrying: 0, pending: 0 };
      // 0/1 on SQLite, a boolean on PostgreSQL: deliveryCounts reads either
      const tried = sql<number | boolean>`${w.attempts} > 0`;
      const rows = await engine.read((db) =>
        db
          .select({ status: w.status, retrying: tried, n: countOf() })
          .from(w)
          .where(inArray(w.apiKeyId, [...apiKeyIds]))
          .groupBy(w.status, tried),
      );
      return deliveryCounts(rows);
    },

    /** What a webhook delivery of the key sent: the exact body (the same on every attempt; each attempt is signed anew). */
    delivery: (scope: TenantScope, messageId: string, endpointId: string) =>
      engine.read((db) => delivery.one(db, { apiKeyId: scope.apiKeyId, eventId: messageId, target: endpointId })),

    /** One attempt's headers: the request's as sent and the answer's as received (null on attempts recorded before they were kept). */
    async attemptHeaders(scope: TenantScope, attemptId: string) {
      const row = await engine.read((db) => headers.one(db, { apiKeyId: scope.apiKeyId, id: attemptId }));
      if (!row) return undefined;
      const pairs = (text: string | null) => {
        if (text === null) return null;
        const value: unknown = JSON.parse(text);
        return Array.isArray(value)
          ? value.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string')
          : null;
      };
      return {
        eventId: row.eventId,
        target: row.target,
        timestamp: row.timestamp,
        requestHeaders: pairs(row.requestHeaders),
        responseHeaders: pairs(row.responseHeaders),
        responseHeadersOmitted: row.omitted,
      };
    },
  };
}
