// Credentials verified by an earlier call, kept so that the next call with the same pair skips the keyed
// digest (HMAC) and the lookups. A write to the tables credentials are read from drops them all: this process's
// writes at once (the storage layer counts writes to those tables; a write anywhere else leaves the cache, so a
// stream of writes does not verify every caller again), other processes' (the CLI resetting a token while the
// server runs) for every call that arrives after them (server/db/change-stamp.ts). A reset, rotated or deleted
// token, or a changed or deleted key or workspace, is thus refused or seen as it is now by the next call, never
// answered from what was true before. A known caller is answered synchronously; a new one costs one read.
import type { AppContext } from '../context.ts';
import { authenticateApiKey, type VerifiedKey } from '../services/apikeys.ts';
import { authenticateWorkspace, type VerifiedWorkspace } from '../services/workspaces.ts';

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

  /**
   * `changes`: a number that changes whenever what the verified values are read from may have been written
   * (storage's `keys.credentialChanges()`); a change drops every kept pair.
   */
  constructor(private readonly changes: () => number) {}

  /**
   * The value verified for `id` and `secret` by `verify`, from the cache while nothing was written since it
   * was verified (then synchronously: no promise turn for a known caller). `verify` rejects on bad credentials;
   * nothing is kept then.
   */
  get(id: string, secret: string, verify: () => Promise<T>): T | Promise<T> {
    const generation = this.changes();
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    // Header values cannot hold a NUL, so the pair maps to one key unambiguously.
    const key = `${id}\u0000${secret}`;
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    return verify().then((verified) => {
      const value = deepFreeze(verified);
      // Kept only under the stamp read before verifying: a write in between (or a drop by another call) keeps nothing.
      if (this.generation !== generation || this.changes() !== generation) return value;
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
      return value;
    });
  }

  /** How many verified pairs are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

interface Caches {
  apiKeys: VerifiedCredentials<VerifiedKey>;
  workspaces: VerifiedCredentials<VerifiedWorkspace>;
}

// One cache per storage (a test process runs several servers).
const cachesByStorage = new WeakMap<object, Caches>();

export function credentialCaches(app: Pick<AppContext, 'storage'>): Caches {
  let caches = cachesByStorage.get(app.storage);
  if (caches === undefined) {
    const changes = app.storage.keys.credentialChanges();
    caches = { apiKeys: new VerifiedCredentials(changes), workspaces: new VerifiedCredentials(changes) };
    cachesByStorage.set(app.storage, caches);
  }
  return caches;
}

/** Set B (API key id and auth token): the key's row and scope, or PERMISSION_DENIED as `authenticateApiKey` words it. */
export function verifiedApiKey(app: Pick<AppContext, 'storage' | 'secrets'>, apiKeyId: string, authToken: string): VerifiedKey | Promise<VerifiedKey> {
  return credentialCaches(app).apiKeys.get(apiKeyId, authToken, () => authenticateApiKey(app, apiKeyId, authToken));
}

/** Set A (workspace id and workspace auth token): the workspace's row and scope, or PERMISSION_DENIED. */
export function verifiedWorkspace(
  app: Pick<AppContext, 'storage' | 'secrets'>,
  workspaceId: string,
  authToken: string,
): VerifiedWorkspace | Promise<VerifiedWorkspace> {
  return credentialCaches(app).workspaces.get(workspaceId, authToken, () => authenticateWorkspace(app, workspaceId, authToken));
}
