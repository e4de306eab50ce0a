// API keys: the tenants. A key's own row, auth tokens and secrets are read and written with its TenantScope; the
// workspace's list of keys with its WorkspaceScope. Credentials are checked from the rows this repository answers
// (the service compares the digests); only this layer makes the scopes they then give.
import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { keysetAfter, type Cursor } from '../pagination.ts';
import { preparedFor } from '../prepared.ts';
import { apiKeys, apiKeySecrets, authTokens } from '../schema.ts';
import { tenantScope, type Grant, type TenantScope, type WorkspaceScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type AuthTokenRow = typeof authTokens.$inferSelect;

/** The tables a verified key's row and tokens are read from: a write to one may change what credentials reach. */
const CREDENTIAL_TABLES = ['workspaces', 'api_keys', 'auth_tokens'] as const;

const queries = preparedFor((db) => ({
  key: db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
  workspaceOfKey: db
    .select({ workspaceId: apiKeys.workspaceId })
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
  token: db
    .select({ digest: authTokens.tokenDigest })
    .from(authTokens)
    .where(and(eq(authTokens.apiKeyId, sql.placeholder('apiKeyId')), eq(authTokens.tokenDigest, sql.placeholder('digest'))))
    .prepare(),
  secretNames: db
    .select({ name: apiKeySecrets.name })
    .from(apiKeySecrets)
    .where(eq(apiKeySecrets.apiKeyId, sql.placeholder('apiKeyId')))
    .prepare(),
  secret: db
    .select({ valueEnc: apiKeySecrets.valueEnc })
    .from(apiKeySecrets)
    .where(and(eq(apiKeySecrets.apiKeyId, sql.placeholder('apiKeyId')), eq(apiKeySecrets.name, sql.placeholder('name'))))
    .prepare(),
}));

const ownKey = (scope: TenantScope) => eq(apiKeys.id, scope.apiKeyId);

/** API keys, their auth tokens and secrets, and the scopes they give. */
export function keysRepo(engine: SqliteEngine) {
  return {
    /**
     * The scope of a key whose credentials, user token or ticket were verified, or that the server acts for itself
     * (a job, a tool): undefined when there is no such key.
     */
    scopeFor: async (apiKeyId: string, grant: Grant = { kind: 'key' }): Promise<TenantScope | undefined> => {
      const row = await engine.read((db) => queries(db).workspaceOfKey.get({ id: apiKeyId }));
      return row ? tenantScope(apiKeyId, row.workspaceId, grant) : undefined;
    },
    /** A key's row and its scope under `grant`, in one read (a websocket's user-token upgrade needs both). */
    withScope: async (apiKeyId: string, grant: Grant): Promise<{ key: ApiKeyRow; scope: TenantScope } | undefined> => {
      const key = await engine.read((db) => queries(db).key.get({ id: apiKeyId }));
      return key ? { key, scope: tenantScope(key.id, key.workspaceId, grant) } : undefined;
    },
    /** The scope of a key row this repository answered (no lookup). */
    scopeOf: (row: Pick<ApiKeyRow, 'id' | 'workspaceId'>, grant: Grant = { kind: 'key' }): TenantScope => tenantScope(row.id, row.workspaceId, grant),

    /**
     * What checking a key's credentials needs, in one read: the key's row and, when `tokenDigest` is one of its auth
     * tokens' digests, that stored digest (for the caller's constant-time comparison).
     */
    forCredentials: (apiKeyId: string, tokenDigest: string) =>
      engine.read((db) => {
        const q = queries(db);
        const key = q.key.get({ id: apiKeyId });
        return key ? { key, storedDigest: q.token.get({ apiKeyId: key.id, digest: tokenDigest })?.digest } : undefined;
      }),

    /** A number that changes whenever what a key's or workspace's credentials reach may have changed (for caches). */
    credentialChanges: () => engine.tableChanges(CREDENTIAL_TABLES),

    /** The key's row as stored now. */
    find: (scope: TenantScope) => engine.read((db) => queries(db).key.get({ id: scope.apiKeyId })),

    /** One key of the workspace (a key of another workspace is as unknown as a missing one). */
    findInWorkspace: (workspace: WorkspaceScope, apiKeyId: string) =>
      engine.read((db) =>
        db
          .select()
          .from(apiKeys)
          .where(and(eq(apiKeys.id, apiKeyId), eq(apiKeys.workspaceId, workspace.workspaceId)))
          .get(),
      ),

    /** The workspace's keys in the order they were made: id, name and type. */
    listInWorkspace: (workspace: WorkspaceScope) =>
      engine.read((db) =>
        db
          .select({ id: apiKeys.id, name: apiKeys.name, type: apiKeys.type })
          .from(apiKeys)
          .where(eq(apiKeys.workspaceId, workspace.workspaceId))
          .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
          .all(),
      ),

    /** A page of the workspace's keys by (createdAt, id): the given ids only (or all), after the cursor. */
    page: (workspace: WorkspaceScope, options: { ids?: readonly string[] | undefined; after: Cursor | null; limit: number }) =>
      engine.read((db) => {
        const conditions: SQL[] = [eq(apiKeys.workspaceId, workspace.workspaceId)];
        if (options.ids) conditions.push(inArray(apiKeys.id, [...options.ids]));
        const after = keysetAfter(apiKeys.createdAt, apiKeys.id, options.after, false);
        if (after) conditions.push(after);
        return db
          .select()
          .from(apiKeys)
          .where(and(...conditions))
          .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
          .limit(options.limit)
          .all();
      }),

    /** How many production keys the workspace has. */
    productionCount: (workspace: WorkspaceScope) =>
      engine.read(
        (db) =>
          db
            .select({ n: count() })
            .from(apiKeys)
            .where(and(eq(apiKeys.workspaceId, workspace.workspaceId), eq(apiKeys.type, 'production')))
            .get()?.n ?? 0,
      ),

    /** Adds a key to the workspace; answers its scope. */
    insert: async (workspace: WorkspaceScope, row: Omit<ApiKeyRow, 'workspaceId'>): Promise<TenantScope> => {
      await engine.write(
        (db) =>
          void db
            .insert(apiKeys)
            .values({ ...row, workspaceId: workspace.workspaceId })
            .run(),
      );
      return tenantScope(row.id, workspace.workspaceId);
    },

    /** Changes the given fields of the key's row; whether it exists. */
    update: (scope: TenantScope, change: Partial<Pick<ApiKeyRow, 'name' | 'settings' | 'allowedDomains' | 'disabled' | 'disabledAt' | 'updatedAt'>>) =>
      engine.write((db) => db.update(apiKeys).set(change).where(ownKey(scope)).run().changes > 0),

    /** The key's auth tokens, oldest first. */
    tokens: (scope: TenantScope) =>
      engine.read((db) =>
        db.select().from(authTokens).where(eq(authTokens.apiKeyId, scope.apiKeyId)).orderBy(asc(authTokens.createdAt), asc(authTokens.id)).all(),
      ),

    insertToken: (scope: TenantScope, row: Omit<AuthTokenRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .insert(authTokens)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .run(),
      ),

    deleteToken: (scope: TenantScope, id: string) =>
      engine.write(
        (db) =>
          void db
            .delete(authTokens)
            .where(and(eq(authTokens.apiKeyId, scope.apiKeyId), eq(authTokens.id, id)))
            .run(),
      ),

    /** One of the key's secrets, encrypted as stored. */
    secret: (scope: TenantScope, name: string) => engine.read((db) => queries(db).secret.get({ apiKeyId: scope.apiKeyId, name })?.valueEnc),

    /** The names of the key's secrets. */
    secretNames: (scope: TenantScope) =>
      engine.read(
        (db) =>
          new Set(
            queries(db)
              .secretNames.all({ apiKeyId: scope.apiKeyId })
              .map((r) => r.name),
          ),
      ),

    /** Stores one of the key's secrets (already encrypted), replacing it. */
    setSecret: (scope: TenantScope, name: string, valueEnc: string, now: number) =>
      engine.write(
        (db) =>
          void db
            .insert(apiKeySecrets)
            .values({ apiKeyId: scope.apiKeyId, name, valueEnc, updatedAt: now })
            .onConflictDoUpdate({ target: [apiKeySecrets.apiKeyId, apiKeySecrets.name], set: { valueEnc, updatedAt: now } })
            .run(),
      ),

    deleteSecret: (scope: TenantScope, name: string) =>
      engine.write(
        (db) =>
          void db
            .delete(apiKeySecrets)
            .where(and(eq(apiKeySecrets.apiKeyId, scope.apiKeyId), eq(apiKeySecrets.name, name)))
            .run(),
      ),
  };
}

export type KeysRepo = ReturnType<typeof keysRepo>;
