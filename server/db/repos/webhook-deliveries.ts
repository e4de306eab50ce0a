// Delivery state (one row per event and target, one per attempt) lives in its own SQLite file, `webhooks.db`,
// written only by the delivery worker thread (repos/webhook-delivery.ts). Requests write `hearth.db`; deliveries
// write this file: the two never wait on each other's write lock, and delivery writes never grow the WAL that a
// request's commit may have to checkpoint. The outbox itself stays in `hearth.db`, written in the unit of work of
// the change (DESIGN §3.6, repos/webhooks.ts). There are no foreign keys to `hearth.db` (SQLite has none across
// files); code that deletes an outbox event or an API key must delete the matching rows here too (db/tenancy.ts).
// On PostgreSQL the delivery tables are tables of the one database (pg/schema.ts converts delivery-schema.ts with
// the rest), written by the worker's store there (pg/repos/webhook-delivery.ts).
//
// The main thread's reads of delivery state (the attempts list, replay targets, and inspection.ts's
// deliveryInspection: the admin's gauges and views) are written once for both engines (issue 43) over a
// DeliveryEngine: on SQLite webhooks.db's one read-only connection, on PostgreSQL the engine of the one database.
// test/pg/webhook-delivery.test.ts asks both the same and compares every answer.
import type Database from 'better-sqlite3';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { openDeliveryFile } from '../delivery-file.ts';
import { webhookAttempts, webhookDeliveries } from '../delivery-schema.ts';
import type { Engine, Prepared, Q, RowOf, Statement } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { TenantScope } from '../scope.ts';
import { deliveryInspection } from './inspection.ts';

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

/** Every delivery read of the main thread: the attempts list and replay targets, and the admin's (inspection.ts). */
export function deliveryReads(engine: DeliveryEngine) {
  return { ...webhookDeliveriesRepo(engine), ...deliveryInspection(engine) };
}
