import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ownerOnlyDatabase } from '../security/file-modes.ts';
import { compileWithUnpeekedLimits } from './bound-limit.ts';

// webhooks.db, delivery state's own SQLite file: why it is separate is told in repos/webhook-deliveries.ts. The
// delivery worker opens this file without drizzle (repos/webhook-delivery.ts): a worker thread loads its modules
// anew, and drizzle's hundreds of files cost it seconds of start-up through the TypeScript loader.

/** Delivery state's own SQLite file in the data dir. */
export { DELIVERY_FILE } from '../data-files.ts';
import { DELIVERY_FILE } from '../data-files.ts';

/**
 * Page cache of each delivery connection, in KiB (SQLite's own default). better-sqlite3 builds SQLite with a
 * 16,000 KiB default, and a connection's cache is native memory that only grows, up to that bound, as the file
 * grows: the worker is the file's only writer, so nothing ever resets its cache, and a busy server's RSS rose by
 * ~15 MiB per connection over minutes (the soak). Delivery work touches the tail of its indexes (time-ordered
 * event ids, the small partial index of pending deliveries), which 2 MiB holds many times over.
 */
export const DELIVERY_CACHE_KIB = 2000;

/**
 * The file's schema, versioned with `PRAGMA user_version` (this file is not under drizzle-kit: it is not part of
 * `hearth.db`'s migrations). Version 1 is the tables as they were in `hearth.db` (migration 0005), without the
 * foreign keys.
 */
const SCHEMA: string[] = [
  `CREATE TABLE IF NOT EXISTS webhook_deliveries (
    api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL, url text NOT NULL, body text NOT NULL,
    status text NOT NULL, attempts integer DEFAULT 0 NOT NULL, next_attempt_at integer,
    next_trigger text DEFAULT 'scheduled' NOT NULL, last_attempt_at integer, last_status_code integer,
    created_at integer NOT NULL, PRIMARY KEY (event_id, target));
  CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX IF NOT EXISTS webhook_deliveries_target ON webhook_deliveries (api_key_id, target, created_at);
  CREATE TABLE IF NOT EXISTS webhook_attempts (
    id text PRIMARY KEY NOT NULL, api_key_id text NOT NULL, event_id text NOT NULL, target text NOT NULL,
    url text NOT NULL, trigger text NOT NULL, status text NOT NULL, response_status_code integer,
    response text NOT NULL, duration_ms integer NOT NULL, timestamp integer NOT NULL);
  CREATE INDEX IF NOT EXISTS webhook_attempts_event ON webhook_attempts (api_key_id, event_id, timestamp);
  CREATE INDEX IF NOT EXISTS webhook_attempts_target ON webhook_attempts (api_key_id, target, timestamp, id);`,
  // 2: what each attempt sent and received besides the bodies. `request_headers`: the headers of the request as
  // it went out (JSON `[name, value]` pairs); `response_headers`: the receiver's answer's, as received and bounded
  // (ATTEMPT_RESPONSE_HEADERS, webhooks/protocol.ts), with `response_headers_omitted` the number left out. NULL on older attempts.
  `ALTER TABLE webhook_attempts ADD COLUMN request_headers text;
  ALTER TABLE webhook_attempts ADD COLUMN response_headers text;
  ALTER TABLE webhook_attempts ADD COLUMN response_headers_omitted integer DEFAULT 0 NOT NULL;`,
];

/**
 * Opens `DATA_DIR/webhooks.db`, creating or upgrading its schema. `readOnly` connections (the main thread's: the
 * attempts list, replay checks, the admin UI) refuse writes, so the worker stays the file's only writer.
 */
export function openDeliveryFile(dataDir: string, options: { readOnly: boolean; legacyFrom?: Database.Database }): Database.Database {
  ownerOnlyDatabase(join(dataDir, DELIVERY_FILE));
  const sqlite = new Database(join(dataDir, DELIVERY_FILE));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`cache_size = -${DELIVERY_CACHE_KIB}`);
  const versionOf = () => sqlite.pragma('user_version', { simple: true }) as number;
  try {
    if (versionOf() !== SCHEMA.length) {
      // Read again under the write lock: the main thread and the delivery worker both open the file, and a step
      // (ALTER TABLE) must not run twice.
      sqlite
        .transaction(() => {
          const version = versionOf();
          if (version > SCHEMA.length)
            throw new Error(`${DELIVERY_FILE} was written by a newer Hearth (schema ${version}; this build knows ${SCHEMA.length}).`);
          for (const step of SCHEMA.slice(version)) sqlite.exec(step);
          sqlite.pragma(`user_version = ${SCHEMA.length}`);
        })
        .immediate();
    }
  } catch (error) {
    sqlite.close();
    throw error;
  }
  if (options.legacyFrom) moveLegacyDeliveries(options.legacyFrom, sqlite);
  if (options.readOnly) sqlite.pragma('query_only = ON');
  compileWithUnpeekedLimits(sqlite);
  return sqlite;
}

/**
 * Hearth before 0.2 kept delivery state in `hearth.db`; migration 0007 renamed those tables to `*_legacy`. Their
 * rows move here once (idempotent: a crash half-way repeats the copy, which ignores rows already there), then the
 * legacy tables are dropped.
 */
function moveLegacyDeliveries(main: Database.Database, store: Database.Database) {
  const legacy = main
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('webhook_deliveries_legacy', 'webhook_attempts_legacy')")
    .all() as { name: string }[];
  if (legacy.length === 0) return;
  const copy = (table: string, columns: string) => {
    const insert = store.prepare(
      `INSERT OR IGNORE INTO ${table} (${columns}) VALUES (${columns
        .split(',')
        .map(() => '?')
        .join(',')})`,
    );
    store
      .transaction(() => {
        for (const row of main.prepare(`SELECT ${columns} FROM ${table}_legacy`).raw().iterate()) insert.run(...(row as unknown[]));
      })
      .immediate();
  };
  const names = new Set(legacy.map((l) => l.name));
  if (names.has('webhook_deliveries_legacy')) {
    copy('webhook_deliveries', 'api_key_id,event_id,target,url,body,status,attempts,next_attempt_at,next_trigger,last_attempt_at,last_status_code,created_at');
  }
  if (names.has('webhook_attempts_legacy'))
    copy('webhook_attempts', 'id,api_key_id,event_id,target,url,trigger,status,response_status_code,response,duration_ms,timestamp');
  main.exec('DROP TABLE IF EXISTS webhook_attempts_legacy; DROP TABLE IF EXISTS webhook_deliveries_legacy;');
}
