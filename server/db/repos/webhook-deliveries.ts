// Delivery state (one row per event and target, one per attempt) lives in its own SQLite file, `webhooks.db`,
// written only by the delivery worker thread (repos/webhook-delivery.ts). Requests write `hearth.db`; deliveries
// write this file: the two never wait on each other's write lock, and delivery writes never grow the WAL that a
// request's commit may have to checkpoint. The outbox itself stays in `hearth.db`, written in the unit of work of
// the change (DESIGN §3.6, repos/webhooks.ts). There are no foreign keys to `hearth.db` (SQLite has none across
// files); code that deletes an outbox event or an API key must delete the matching rows here too (db/tenancy.ts).
//
// The main thread reads this file through one read-only connection (the attempts list, replay checks, the admin
// UI): the reads below.
import type Database from 'better-sqlite3';
import { and, desc, eq, type SQL } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { openDeliveryFile } from '../delivery-file.ts';
import { webhookAttempts, webhookDeliveries } from '../delivery-schema.ts';
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

/** The filters of the attempts list. */
export interface AttemptFilters {
  endpointId?: string | undefined;
  messageId?: string | undefined;
  status?: AttemptRow['status'] | undefined;
}

/** The key's delivery state, read on the main thread's read-only connection. */
export function webhookDeliveriesRepo(deliveries: DeliveryDb) {
  return {
    /** Attempts, newest first, after the (timestamp, id) cursor: `limit` rows at most. */
    attempts: async (scope: TenantScope, filters: AttemptFilters, after: Cursor | null, limit: number) => {
      const a = webhookAttempts;
      const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, scope.apiKeyId), keysetAfter(a.timestamp, a.id, after, true)];
      if (filters.endpointId) conditions.push(eq(a.target, filters.endpointId));
      if (filters.messageId) conditions.push(eq(a.eventId, filters.messageId));
      if (filters.status) conditions.push(eq(a.status, filters.status));
      return deliveries
        .select()
        .from(a)
        .where(and(...conditions))
        .orderBy(desc(a.timestamp), desc(a.id))
        .limit(limit)
        .all();
    },

    /** The targets a message was delivered to (or that one target, when it was). */
    targetsOf: async (scope: TenantScope, messageId: string, target?: string) => {
      const d = webhookDeliveries;
      const conditions = [eq(d.apiKeyId, scope.apiKeyId), eq(d.eventId, messageId)];
      if (target) conditions.push(eq(d.target, target));
      return deliveries
        .select({ target: d.target })
        .from(d)
        .where(and(...conditions))
        .all()
        .map((r) => r.target);
    },
  };
}
