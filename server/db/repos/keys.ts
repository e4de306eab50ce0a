// API keys: the tenants. A key's own row, auth tokens and secrets are read and written with its TenantScope; the
// workspace's list of keys with its WorkspaceScope. Credentials are checked from the rows this repository answers
// (the service compares the digests); only this layer makes the scopes they then give. Written once for both engines
// (engine.ts; test/pg/keys.test.ts runs it on both and compares every answer); the lookups of the credentials path
// (every request) are prepared once per connection on each.
import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { apiKeys, authTokens } from '../schema.ts';
import { tenantScope, type Grant, type TenantScope, type WorkspaceScope } from '../scope.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type AuthTokenRow = typeof authTokens.$inferSelect;

/** The tables a verified key's row and tokens are read from: a write to one may change what credentials reach. */
const CREDENTIAL_TABLES = ['workspaces', 'api_keys', 'auth_tokens'] as const;

/**
 * What counts the writes to some tables, for `credentialChanges`: the engine itself (storage.ts's SqliteEngine counts
 * this process's writes and other processes' commits, change-stamp.ts; pg/engine.ts's counts this instance's commits
 * at once and every instance's writes as PostgreSQL notifies them).
 */
export interface TableChanges {
  tableChanges(tables: readonly string[]): () => number;
}

const P = sql.placeholder;

/** API keys, their auth tokens and secrets, and the scopes they give. */
export function keysRepo(engine: Engine, changes: TableChanges) {
  const { apiKeys: k, authTokens: at, apiKeySecrets: s } = engine.t;
  const key = engine.prepare('keys.key', (db) =>
    db
      .select()
      .from(k)
      .where(eq(k.id, P('id'))),
  );
  const workspaceOfKey = engine.prepare('keys.workspaceOfKey', (db) =>
    db
      .select({ workspaceId: k.workspaceId })
      .from(k)
      .where(eq(k.id, P('id'))),
  );
  // one statement, so one instant on both engines: the key, and its auth token of that digest if there is one
  // (digests are unique)
  const credentials = engine.prepare('keys.credentials', (db) =>
    db
      .select({ key: k, digest: at.tokenDigest })
      .from(k)
      .leftJoin(at, and(eq(at.apiKeyId, k.id), eq(at.tokenDigest, P('digest'))))
      .where(eq(k.id, P('id')))
      .limit(1),
  );
  const secretNames = engine.prepare('keys.secretNames', (db) =>
    db
      .select({ name: s.name })
      .from(s)
      .where(eq(s.apiKeyId, P('apiKeyId'))),
  );
  const secret = engine.prepare('keys.secret', (db) =>
    db
      .select({ valueEnc: s.valueEnc })
      .from(s)
      .where(and(eq(s.apiKeyId, P('apiKeyId')), eq(s.name, P('name')))),
  );

  const ownKey = (scope: TenantScope) => eq(k.id, scope.apiKeyId);

  return {
    /**
     * The scope of a key whose credentials, user token or ticket were verified, or that the server acts for itself
     * (a job, a tool): undefined when there is no such key.
     */
    scopeFor: async (apiKeyId: string, grant: Grant = { kind: 'key' }): Promise<TenantScope | undefined> => {
      const row = await engine.read((db) => workspaceOfKey.one(db, { id: apiKeyId }));
      return row ? tenantScope(apiKeyId, row.workspaceId, grant) : undefined;
    },
    /** A key's row and its scope under `grant`, in one read (a websocket's user-token upgrade needs both). */
    withScope: async (apiKeyId: string, grant: Grant): Promise<{ key: ApiKeyRow; scope: TenantScope } | undefined> => {
      const row = await engine.read((db) => key.one(db, { id: apiKeyId }));
      return row ? { key: row, scope: tenantScope(row.id, row.workspaceId, grant) } : undefined;
    },
    /** The scope of a key row this repository answered (no lookup). */
    scopeOf: (row: Pick<ApiKeyRow, 'id' | 'workspaceId'>, grant: Grant = { kind: 'key' }): TenantScope => tenantScope(row.id, row.workspaceId, grant),

    /**
     * What checking a key's credentials needs, in one read: the key's row and, when `tokenDigest` is one of its auth
     * tokens' digests, that stored digest (for the caller's constant-time comparison).
     */
    forCredentials: (apiKeyId: string, tokenDigest: string) =>
      engine.read(async (db) => {
        const row = await credentials.one(db, { id: apiKeyId, digest: tokenDigest });
        return row ? { key: row.key, storedDigest: row.digest ?? undefined } : undefined;
      }),

    /** A number that changes whenever what a key's or workspace's credentials reach may have changed (for caches). */
    credentialChanges: () => changes.tableChanges(CREDENTIAL_TABLES),

    /** The key's row as stored now. */
    find: (scope: TenantScope) => engine.read((db) => key.one(db, { id: scope.apiKeyId })),

    /** One key of the workspace (a key of another workspace is as unknown as a missing one). */
    findInWorkspace: (workspace: WorkspaceScope, apiKeyId: string) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(k)
              .where(and(eq(k.id, apiKeyId), eq(k.workspaceId, workspace.workspaceId)))
              .limit(1)
          )[0],
      ),

    /** The workspace's keys in the order they were made: id, name and type. */
    listInWorkspace: (workspace: WorkspaceScope) =>
      engine.read((db) =>
        db.select({ id: k.id, name: k.name, type: k.type }).from(k).where(eq(k.workspaceId, workspace.workspaceId)).orderBy(asc(k.createdAt), asc(k.id)),
      ),

    /** A page of the workspace's keys by (createdAt, id): the given ids only (or all), after the cursor. */
    page: (workspace: WorkspaceScope, options: { ids?: readonly string[] | undefined; after: Cursor | null; limit: number }) =>
      engine.read((db) => {
        const conditions: SQL[] = [eq(k.workspaceId, workspace.workspaceId)];
        if (options.ids) conditions.push(inArray(k.id, [...options.ids]));
        const after = keysetAfter(k.createdAt, k.id, options.after, false);
        if (after) conditions.push(after);
        return db
          .select()
          .from(k)
          .where(and(...conditions))
          .orderBy(asc(k.createdAt), asc(k.id))
          .limit(options.limit);
      }),

    /** How many production keys the workspace has. */
    productionCount: (workspace: WorkspaceScope) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ n: count() })
              .from(k)
              .where(and(eq(k.workspaceId, workspace.workspaceId), eq(k.type, 'production')))
          )[0]?.n ?? 0,
      ),

    /** Adds a key to the workspace; answers its scope. */
    insert: async (workspace: WorkspaceScope, row: Omit<ApiKeyRow, 'workspaceId'>): Promise<TenantScope> => {
      await engine.write(async (db) => {
        await db.insert(k).values({ ...row, workspaceId: workspace.workspaceId });
      });
      return tenantScope(row.id, workspace.workspaceId);
    },

    /**
     * Takes the key's row lock for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write unit
     * holds the database): a settings or allowed-domains change that merges into what it read waits for another's
     * commit, then reads what it left.
     */
    lock: (scope: TenantScope) => engine.write((db) => engine.lockRows(db, ['api-key'], [scope.apiKeyId])),

    /** Changes the given fields of the key's row; whether it exists. */
    update: (scope: TenantScope, change: Partial<Pick<ApiKeyRow, 'name' | 'settings' | 'allowedDomains' | 'disabled' | 'disabledAt' | 'updatedAt'>>) =>
      engine.write(async (db) => engine.changed(await db.update(k).set(change).where(ownKey(scope))) > 0),

    /** The key's auth tokens, oldest first. */
    tokens: (scope: TenantScope) => engine.read((db) => db.select().from(at).where(eq(at.apiKeyId, scope.apiKeyId)).orderBy(asc(at.createdAt), asc(at.id))),

    insertToken: (scope: TenantScope, row: Omit<AuthTokenRow, 'apiKeyId'>) =>
      engine.write(async (db) => {
        await db.insert(at).values({ ...row, apiKeyId: scope.apiKeyId });
      }),

    deleteToken: (scope: TenantScope, id: string) =>
      engine.write(async (db) => {
        await db.delete(at).where(and(eq(at.apiKeyId, scope.apiKeyId), eq(at.id, id)));
      }),

    /** One of the key's secrets, encrypted as stored. */
    secret: (scope: TenantScope, name: string) => engine.read(async (db) => (await secret.one(db, { apiKeyId: scope.apiKeyId, name }))?.valueEnc),

    /** The names of the key's secrets. */
    secretNames: (scope: TenantScope) => engine.read(async (db) => new Set((await secretNames.all(db, { apiKeyId: scope.apiKeyId })).map((r) => r.name))),

    /** Stores one of the key's secrets (already encrypted), replacing it. */
    setSecret: (scope: TenantScope, name: string, valueEnc: string, now: number) =>
      engine.write(async (db) => {
        await db
          .insert(s)
          .values({ apiKeyId: scope.apiKeyId, name, valueEnc, updatedAt: now })
          .onConflictDoUpdate({ target: [s.apiKeyId, s.name], set: { valueEnc, updatedAt: now } });
      }),

    deleteSecret: (scope: TenantScope, name: string) =>
      engine.write(async (db) => {
        await db.delete(s).where(and(eq(s.apiKeyId, scope.apiKeyId), eq(s.name, name)));
      }),
  };
}

export type KeysRepo = ReturnType<typeof keysRepo>;
