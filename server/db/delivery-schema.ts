// The tables of webhooks.db (delivery state, its own SQLite file: see repos/webhook-deliveries.ts for why), as drizzle
// tables: in the storage layer with the rest of the schema, so that what reads every table (the archive's table specs)
// finds them here. delivery-file.ts creates and upgrades the file itself (it is not under drizzle-kit): a column
// added there is declared here too, and in archive/source.ts's DELIVERY_COLUMNS_ADDED for files not upgraded yet.
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { WEBHOOK_DELIVERY_STATUSES } from './schema.ts';

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
    /** The request's headers as they went out: JSON `[name, value]` pairs (NULL on attempts recorded before they were kept). */
    requestHeaders: text('request_headers'),
    /** The answer's headers as received, bounded (ATTEMPT_RESPONSE_HEADERS): JSON `[name, value]` pairs, NULL without an answer. */
    responseHeaders: text('response_headers'),
    /** How many of the answer's headers were left out by that bound. */
    responseHeadersOmitted: integer('response_headers_omitted').notNull().default(0),
  },
  (t) => [index('webhook_attempts_event').on(t.apiKeyId, t.eventId, t.timestamp), index('webhook_attempts_target').on(t.apiKeyId, t.target, t.timestamp, t.id)],
);
