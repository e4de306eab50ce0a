// Credentials verified by an earlier call, kept so that the next call with the same pair skips the keyed
// digest (HMAC) and the two lookups. A write to the tables credentials are read from drops them all: this
// connection's writes at once (temporary triggers on those tables call back into the cache; a write anywhere
// else leaves it, so a stream of writes does not verify every caller again), other connections' and processes'
// (the CLI resetting a token while the server runs: `PRAGMA data_version`, change-stamp.ts, which cannot tell
// which table changed) for every call that arrives after them. A reset, rotated or deleted token, or a changed
// or deleted key or workspace, is thus refused or seen as it is now by the next call, never answered from what
// was true before.
import type Database from 'better-sqlite3';
import type { AppContext } from '../context.ts';
import { authenticateApiKey } from '../services/apikeys.ts';
import type { ApiKeyRow, WorkspaceRow } from '../services/types.ts';
import { authenticateWorkspace } from '../services/workspaces.ts';
import { changeStampOf, type ChangeStamp } from '../db/change-stamp.ts';

/** Enough for every key a local backend serves at once; past it the cache starts over (no LRU bookkeeping). */
const MAX_ENTRIES = 1024;

/** Freezes a row and everything in it: one object serves many calls, so no handler may change it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The tables a verified API key or workspace is read from (authenticateApiKey, authenticateWorkspace). */
export const CREDENTIAL_TABLES = ['workspaces', 'api_keys', 'auth_tokens'] as const;

/** How many times this connection wrote to a watched table; the triggers of every watched table count here. */
interface TableWrites {
  count: number;
  watched: Set<string>;
}

const writesBySqlite = new WeakMap<Database.Database, TableWrites>();
const WRITTEN_FUNCTION = 'hearth_watched_table_written';

/**
 * Counts this connection's writes to `tables` (inserts, updates and deletes, cascaded ones included), with
 * temporary triggers: they live in this connection only and cost nothing on writes to other tables. A write
 * later rolled back still counts, which only drops a cache once more than needed.
 */
export function watchTableWrites(sqlite: Database.Database, tables: readonly string[]): TableWrites {
  let writes = writesBySqlite.get(sqlite);
  if (writes === undefined) {
    const created: TableWrites = { count: 0, watched: new Set() };
    sqlite.function(WRITTEN_FUNCTION, { deterministic: false }, () => {
      created.count++;
      return null;
    });
    writesBySqlite.set(sqlite, (writes = created));
  }
  for (const table of tables) {
    if (writes.watched.has(table)) continue;
    for (const event of ['insert', 'update', 'delete']) {
      sqlite.exec(`CREATE TEMP TRIGGER IF NOT EXISTS "hearth_written_${table}_${event}" AFTER ${event} ON main."${table}" BEGIN SELECT ${WRITTEN_FUNCTION}(); END`);
    }
    writes.watched.add(table);
  }
  return writes;
}

export class VerifiedCredentials<T> {
  private readonly entries = new Map<string, T>();
  private generation = -1;
  private readonly stamp: ChangeStamp;
  private readonly writes: TableWrites[];

  /**
   * `tables`: where the verified values are read from; a write to any of them, on `sqlite` or on one of `others`
   * (this process's other connections), drops every kept pair.
   */
  constructor(sqlite: Database.Database, tables: readonly string[] = CREDENTIAL_TABLES, others: readonly Database.Database[] = []) {
    this.stamp = changeStampOf(sqlite, others);
    this.writes = [sqlite, ...others].map((connection) => watchTableWrites(connection, tables));
  }

  private writeCount(): number {
    let count = 0;
    for (const writes of this.writes) count += writes.count;
    return count;
  }

  /**
   * The value verified for `id` and `secret` by `verify`, from the cache while nothing was written since it
   * was verified. `verify` throws on bad credentials; nothing is kept then.
   */
  get(id: string, secret: string, verify: () => T): T {
    // both only grow, so their sum changes whenever either does
    const generation = this.stamp.foreignChanges() + this.writeCount();
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    // Header values cannot hold a NUL, so the pair maps to one key unambiguously.
    const key = `${id}\u0000${secret}`;
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    const value = deepFreeze(verify());
    // Kept under the stamp read before verifying: a write in between shows as a changed stamp next time.
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** How many verified pairs are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

interface Caches {
  apiKeys: VerifiedCredentials<ApiKeyRow>;
  workspaces: VerifiedCredentials<WorkspaceRow>;
}

// One cache per database connection (a test process runs several servers).
const cachesBySqlite = new WeakMap<Database.Database, Caches>();

export function credentialCaches(app: AppContext): Caches {
  let caches = cachesBySqlite.get(app.sqlite);
  if (caches === undefined) {
    const others = [app.storage.engine.writer.sqlite];
    caches = { apiKeys: new VerifiedCredentials(app.sqlite, CREDENTIAL_TABLES, others), workspaces: new VerifiedCredentials(app.sqlite, CREDENTIAL_TABLES, others) };
    cachesBySqlite.set(app.sqlite, caches);
  }
  return caches;
}

/** Set B (API key id and auth token): the key's row, or PERMISSION_DENIED as `authenticateApiKey` words it. */
export function verifiedApiKey(app: AppContext, apiKeyId: string, authToken: string): ApiKeyRow {
  return credentialCaches(app).apiKeys.get(apiKeyId, authToken, () => authenticateApiKey(app, apiKeyId, authToken));
}

/** Set A (workspace id and workspace auth token): the workspace's row, or PERMISSION_DENIED. */
export function verifiedWorkspace(app: AppContext, workspaceId: string, authToken: string): WorkspaceRow {
  return credentialCaches(app).workspaces.get(workspaceId, authToken, () => authenticateWorkspace(app, workspaceId, authToken));
}
