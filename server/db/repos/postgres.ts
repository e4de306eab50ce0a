// The ways in to PostgreSQL (DATABASE_URL) from outside the storage layer, each loaded on use: a server on SQLite
// never loads pg. Apart from repos/index.ts (whose Storage type the PostgreSQL storage implements), so that the two
// do not import each other.
import type { Storage } from './index.ts';

/** The storage over PostgreSQL (pg/storage.ts). */
export async function openPostgresStorage(...args: Parameters<typeof import('../pg/storage.ts').openPgStorage>): Promise<Storage> {
  return (await import('../pg/storage.ts')).openPgStorage(...args);
}

/** The delivery worker's storage on PostgreSQL (pg/repos/webhook-delivery.ts). */
export async function openPostgresDeliveryWorkerStorage(url: string) {
  return (await import('../pg/repos/webhook-delivery.ts')).openDeliveryWorkerStoragePg(url);
}

/** Migrations an admin command would apply beneath a running older server (pg/storage.ts). */
export async function postgresMigrationsPendingUnderServer(url: string): Promise<number> {
  return (await import('../pg/storage.ts')).migrationsPendingUnderServer(url);
}
