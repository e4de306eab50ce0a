// Credentials verified by an earlier call, kept so that the next call with the same pair skips the keyed
// digest (HMAC) and the two lookups. Any write to the database drops them all (change-stamp.ts): this
// connection's own writes at once, other connections' and processes' (the CLI resetting a token while the
// server runs) for every call that arrives after them. A reset, rotated or deleted token, or a changed or
// deleted key, is thus refused or seen as it is now by the next call, never answered from what was true before.
import type Database from 'better-sqlite3';
import type { AppContext } from '../context.ts';
import { authenticateApiKey } from '../services/apikeys.ts';
import type { ApiKeyRow, WorkspaceRow } from '../services/types.ts';
import { authenticateWorkspace } from '../services/workspaces.ts';
import { changeStampOf, type ChangeStamp } from './change-stamp.ts';

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

export class VerifiedCredentials<T> {
  private readonly entries = new Map<string, T>();
  private generation = -1;
  private readonly stamp: ChangeStamp;

  constructor(sqlite: Database.Database) {
    this.stamp = changeStampOf(sqlite);
  }

  /**
   * The value verified for `id` and `secret` by `verify`, from the cache while nothing was written since it
   * was verified. `verify` throws on bad credentials; nothing is kept then.
   */
  get(id: string, secret: string, verify: () => T): T {
    const generation = this.stamp.current();
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
    caches = { apiKeys: new VerifiedCredentials(app.sqlite), workspaces: new VerifiedCredentials(app.sqlite) };
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
