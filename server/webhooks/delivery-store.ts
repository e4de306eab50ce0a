import type Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { webhookAttempts, webhookDeliveries } from '../db/delivery-schema.ts';
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
export { webhookAttempts, webhookDeliveries };

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
