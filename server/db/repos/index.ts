// The repositories, one per area, over one engine: what services ask for their data. Each method that reads or
// writes tenant data takes the tenant's scope and filters by it itself. `transaction` groups calls into one unit of
// work (storage.ts).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../data-files.ts';
import type { Logger } from '../../log.ts';
import type { TenantScope } from '../scope.ts';
import { openDatabase, schemaStatus } from '../client.ts';
import { connectionOf } from '../connection.ts';
import { checkMasterKey, type MasterKeyCheck } from '../key-check.ts';
export { MasterKeyMismatchError } from '../key-check.ts';
import { createSqliteEngine, sqliteDialect, type SqliteEngine } from '../storage.ts';
import { deliveryEngine, deliveryReads, openDeliveryStore, type DeliveryStore } from './webhook-deliveries.ts';
import { notificationsRepo, notificationsSqlite } from './notifications.ts';
import { accessRepo } from './access.ts';
import { fileAttachmentStore, type AttachmentStore } from './attachments.ts';
import { reposWrittenOnce } from './written-once.ts';

/** The repositories: those written once for both engines, and those each engine still has its own of (docs/storage.md). */
type Repos = ReturnType<typeof reposWrittenOnce> & {
  notifications: ReturnType<typeof notificationsRepo>;
  access: ReturnType<typeof accessRepo>;
};

/**
 * What a storage's engine shows the rest of the server: which it is, its change stamp (change-stamp.ts), and on
 * PostgreSQL how many units of work the database refused and were run again (SQLite runs one at a time: none).
 */
export type StorageEngine = SqliteEngine | { readonly kind: 'postgres'; changes(): number; retries(): number };

/**
 * A storage, over either engine (SQLite here; PostgreSQL in pg/storage.ts): the repositories, each with the SQLite
 * original's type (the ports are held to it), and the unit of work that groups them.
 */
export type Storage = Repos & {
  engine: StorageEngine;
  /** Recordings' attachment bytes: files of the data dir on SQLite, rows of the database on PostgreSQL (attachments.ts). */
  attachments: AttachmentStore;
  /** Delivery state (webhooks.db on SQLite, its tables on PostgreSQL): attempts, replay targets, the admin's gauges and views. */
  deliveries: ReturnType<typeof deliveryReads>;
  /** Closes every connection; `checkpoint` first folds SQLite's write-ahead log into the file (a server's stop). */
  close(options?: { checkpoint?: boolean }): Promise<void>;
  /**
   * Claims the database for the server about to start, refused with a clear error when it cannot share it: on
   * PostgreSQL a lone instance (no REDIS_URL) holds it alone, and instances of a cluster (REDIS_URL) share it with
   * each other but never with a lone one. Nothing on SQLite, where the data dir's server lock (server-lock.ts) tells
   * CLI commands that a server runs.
   */
  claimServer(mode: 'alone' | 'cluster', instanceId?: string): Promise<void>;
  /**
   * The cluster's identity (issue 42; cluster/identity.ts): the database's cluster id, written as `candidate` by the
   * first instance that asks (`created`), and the ids of the cluster instances running on the database now (each
   * named by its claim's connection; claimServer's `instanceId`). Undefined on SQLite, which has no cluster.
   */
  clusterIdentity(candidate: string): Promise<{ clusterId: string; created: boolean; liveInstances: string[] } | undefined>;
  /** Where the database stands against this build's migrations (GET /readyz); rejects when it cannot be read. */
  readiness(): Promise<{ applied: number; pending: number; unknown: number }>;
  /** The database's size on disk: hearth.db's file (its write-ahead log aside), or PostgreSQL's database. */
  databaseBytes(): Promise<number>;
  /**
   * One unit of work. `bulk`: a unit that writes much (an import): on SQLite its commit leaves the write-ahead log to
   * the checkpointer's thread, where an automatic checkpoint would copy it into the database file on the event loop
   * (1.6 s for 50 MB); PostgreSQL has nothing to do for it. `rowLevel`: a unit audited for PostgreSQL's READ
   * COMMITTED (docs/storage.md, "Invariants"): what it reads, checks and writes is held by the repositories' row
   * locks, advisory locks and conflict clauses, so it runs at READ COMMITTED there instead of SERIALIZABLE; SQLite
   * runs one writer at a time either way. `deletesDocumentsOf`: a unit that deletes documents of the organization
   * with their data (db/tenancy.ts, DOCUMENT_DATA): on PostgreSQL it begins once the units adding rows under the
   * organization's documents at READ COMMITTED have committed, and those that come after wait for its end
   * (docs/storage.md, "Fences"); SQLite's one writer needs nothing. `addsToDocumentsOf`: a unit at READ COMMITTED
   * that adds rows under a document it read (a notification) after taking row locks of its own (a comment's): it
   * shares the organization's document data from its first statement, not only at the add, so that a delete never
   * waits for its row locks while it waits for the delete.
   */
  transaction<T>(
    work: () => Promise<T>,
    options?: { bulk?: boolean; rowLevel?: boolean; deletesDocumentsOf?: OrganizationOf; addsToDocumentsOf?: OrganizationOf },
  ): Promise<T>;
  inTransaction(): boolean;
  /**
   * Runs `callback` once the caller's unit of work has committed, never before and never after a rollback: what
   * tells another connection or thread to read (the delivery worker's wake), or drops loaded documents whose rows an
   * import replaced. Outside a unit of work, at once.
   */
  afterCommit(callback: () => void): void;
};

/** An organization of a tenant (a unit of work's options). */
type OrganizationOf = { scope: TenantScope; organizationId: string };

/**
 * The repositories over `engine` (hearth.db) and over webhooks.db's read connection (`deliveries`: the delivery
 * worker's file, read by the attempts list, replays and the admin's views), with the data dir's attachment files.
 * `close` closes every connection.
 */
export function createStorage(engine: SqliteEngine, deliveries: DeliveryStore, dataDir: string): Storage {
  // the engine as the repositories written once for both engines see it (engine.ts)
  const one = sqliteDialect(engine);
  const shared = reposWrittenOnce(one, engine, engine);
  return {
    engine,
    attachments: fileAttachmentStore(dataDir, shared.recordings.storedKeys),
    /** webhooks.db as the main thread reads it: attempts, replay targets, the admin's gauges and views. */
    deliveries: deliveryReads(deliveryEngine(one, deliveries)),
    /** Closes every connection; `checkpoint` first folds hearth.db's write-ahead log into the file (a server's stop). */
    async close(options: { checkpoint?: boolean } = {}) {
      engine.close();
      if (engine.main.sqlite.open) {
        if (options.checkpoint) engine.main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
        engine.main.sqlite.close();
      }
      deliveries.close();
    },
    /** Where hearth.db stands against this build's migrations, read on the main connection (GET /readyz); throws when it cannot be read. */
    readiness: () => engine.read((db) => schemaStatus(connectionOf(db))),
    databaseBytes: async () => statSync(engine.main.sqlite.name).size,
    transaction: engine.transaction,
    inTransaction: engine.inTransaction,
    afterCommit: engine.afterCommit,
    claimServer: async () => undefined,
    clusterIdentity: async () => undefined,
    ...shared,
    notifications: notificationsRepo(one, notificationsSqlite(engine)),
    access: accessRepo(engine),
  };
}

/**
 * A data dir's storage: hearth.db opened and migrated (with a backup first when a migration is pending, db/client.ts),
 * the engine's two connections over it, and webhooks.db's read connection. With `masterKey`, the key is checked against
 * the one the database's secrets are encrypted under first (key-check.ts).
 */
export function openStorage(dataDir: string, options: { log?: Logger; masterKey?: MasterKeyCheck } = {}): Storage {
  const file = join(dataDir, DATABASE_FILE);
  const main = openDatabase(file, options);
  let engine: SqliteEngine | undefined;
  try {
    if (options.masterKey) checkMasterKey(main.sqlite, options.masterKey);
    engine = createSqliteEngine(file, main);
    return createStorage(engine, openDeliveryStore(dataDir, { readOnly: true, legacyFrom: main.sqlite }), dataDir);
  } catch (error) {
    engine?.close();
    main.sqlite.close();
    throw error;
  }
}

/**
 * The SQLite engine under a storage, for what only exists there (its connections, for tests and tools that inspect the
 * file itself); on PostgreSQL it throws, naming the engine.
 */
export function sqliteEngineOf(storage: Pick<Storage, 'engine'>): SqliteEngine {
  if (storage.engine.kind !== 'sqlite') throw new Error(`this reads SQLite's connections directly, and the storage runs on ${storage.engine.kind}`);
  return storage.engine;
}
