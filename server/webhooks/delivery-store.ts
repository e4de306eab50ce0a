import type Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { WEBHOOK_DELIVERY_STATUSES } from '../db/schema.ts';
import { openDeliveryFile } from './delivery-file.ts';

/**
 * Delivery state (one row per event and target, one per attempt) lives in its own SQLite file, `webhooks.db`,
 * written only by the delivery worker thread. Requests write `hearth.db`; deliveries write this file: the two
 * never wait on each other's write lock, and delivery writes never grow the WAL that a request's commit may have
 * to checkpoint. The outbox itself stays in `hearth.db`, written in the transaction of the change (DESIGN §3.6).
 * There are no foreign keys to `hearth.db` (SQLite has none across files); nothing in Hearth deletes an outbox
 * event or an API key, so no delivery row can outlive what it refers to. Code that comes to delete either must
 * delete the matching rows here too.
 */
export { DELIVERY_FILE } from './delivery-file.ts';

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    apiKeyId: text('api_key_id').notNull(),
    eventId: text('event_id').notNull(),
    /** An endpoint id, or `basic:raw` / `basic:processed` for the basic webhook URLs. */
    target: text('target').notNull(),
    url: text('url').notNull(),
    /** The exact body sent on every attempt (encoded and/or encrypted once, so retries are byte-identical). */
    body: text('body').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    /** What the next attempt is recorded as: `scheduled`, or `replay` / `recover` when a caller asked for it. */
    nextTrigger: text('next_trigger').notNull().default('scheduled'),
    lastAttemptAt: integer('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.target] }),
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_target').on(t.apiKeyId, t.target, t.createdAt),
  ],
);

export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    apiKeyId: text('api_key_id').notNull(),
    eventId: text('event_id').notNull(),
    target: text('target').notNull(),
    url: text('url').notNull(),
    /** `scheduled`, `replay` or `recover`. */
    trigger: text('trigger').notNull(),
    status: text('status', { enum: ['succeeded', 'failed'] }).notNull(),
    responseStatusCode: integer('response_status_code'),
    /** The first 4 KiB of the receiver's answer, or the network error. */
    response: text('response').notNull(),
    durationMs: integer('duration_ms').notNull(),
    timestamp: integer('timestamp').notNull(),
  },
  (t) => [index('webhook_attempts_event').on(t.apiKeyId, t.eventId, t.timestamp), index('webhook_attempts_target').on(t.apiKeyId, t.target, t.timestamp, t.id)],
);

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
