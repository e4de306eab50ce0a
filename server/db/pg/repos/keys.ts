// API keys on PostgreSQL: the same repository as ../../repos/keys.ts (its type is the contract, test/pg/keys.test.ts
// runs both on the same calls and compares). `credentialChanges` counts this instance's commits at once and every
// instance's writes to the credential tables as PostgreSQL notifies them (engine.tableChanges), where SQLite's counts
// this process's writes and other processes' commits (change-stamp.ts).
import { and, asc, count, eq, gt, inArray, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { ApiKeyRow, AuthTokenRow, KeysRepo } from '../../repos/keys.ts';
import type { Cursor } from '../../pagination.ts';
import { tenantScope, type TenantScope } from '../../scope.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: apiKeys, c } = pgTableFor('apiKeys');
const { table: authTokens, c: t } = pgTableFor('authTokens');
const { table: apiKeySecrets, c: s } = pgTableFor('apiKeySecrets');

/** The tables whose writes can change what a credential reaches (as ../../repos/keys.ts). */
const CREDENTIAL_TABLES = ['workspaces', 'api_keys', 'auth_tokens'] as const;

/** "Strictly after the cursor" for ORDER BY (first, second) ascending (../../pagination.ts's keysetAfter, on PostgreSQL's columns). */
function keysetAfter(first: PgColumn, second: PgColumn, cursor: Cursor | null): SQL | undefined {
  if (!cursor) return undefined;
  const [a, b] = cursor;
  return or(gt(first, a), and(eq(first, a), gt(second, b)));
}

const keyById = async (db: PgDb, id: string) => (await db.select().from(apiKeys).where(eq(c.id, id)).limit(1))[0] as ApiKeyRow | undefined;

const ownKey = (scope: TenantScope) => eq(c.id, scope.apiKeyId);

export function keysRepoPg(engine: PgEngine): KeysRepo {
  return {
    credentialChanges: () => engine.tableChanges(CREDENTIAL_TABLES),

    scopeFor: async (apiKeyId, grant = { kind: 'key' }) => {
      const row = await engine.read(
        async (db) =>
          (await db.select({ workspaceId: c.workspaceId }).from(apiKeys).where(eq(c.id, apiKeyId)).limit(1))[0] as { workspaceId: string } | undefined,
      );
      return row ? tenantScope(apiKeyId, row.workspaceId, grant) : undefined;
    },
    withScope: async (apiKeyId, grant) => {
      const key = await engine.read((db) => keyById(db, apiKeyId));
      return key ? { key, scope: tenantScope(key.id, key.workspaceId, grant) } : undefined;
    },
    scopeOf: (row, grant = { kind: 'key' }) => tenantScope(row.id, row.workspaceId, grant),

    // one statement: the key, and its auth token of that digest if there is one (digests are unique)
    forCredentials: (apiKeyId, tokenDigest) =>
      engine.read(async (db) => {
        const rows = (await db
          .select()
          .from(apiKeys)
          .leftJoin(authTokens, and(eq(t.apiKeyId, c.id), eq(t.tokenDigest, tokenDigest)))
          .where(eq(c.id, apiKeyId))
          .limit(1)) as unknown as Array<{ api_keys: ApiKeyRow; auth_tokens: AuthTokenRow | null }>;
        const row = rows[0];
        return row ? { key: row.api_keys, storedDigest: row.auth_tokens?.tokenDigest } : undefined;
      }),

    find: (scope) => engine.read((db) => keyById(db, scope.apiKeyId)),

    findInWorkspace: (workspace, apiKeyId) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(apiKeys)
              .where(and(eq(c.id, apiKeyId), eq(c.workspaceId, workspace.workspaceId)))
              .limit(1)
          )[0] as ApiKeyRow | undefined,
      ),

    listInWorkspace: (workspace) =>
      engine.read(
        async (db) =>
          (await db
            .select({ id: c.id, name: c.name, type: c.type })
            .from(apiKeys)
            .where(eq(c.workspaceId, workspace.workspaceId))
            .orderBy(asc(c.createdAt), asc(c.id))) as Array<Pick<ApiKeyRow, 'id' | 'name' | 'type'>>,
      ),

    page: (workspace, options) =>
      engine.read(async (db) => {
        const conditions: SQL[] = [eq(c.workspaceId, workspace.workspaceId)];
        if (options.ids) conditions.push(inArray(c.id, [...options.ids]));
        const after = keysetAfter(c.createdAt, c.id, options.after);
        if (after) conditions.push(after);
        return (await db
          .select()
          .from(apiKeys)
          .where(and(...conditions))
          .orderBy(asc(c.createdAt), asc(c.id))
          .limit(options.limit)) as ApiKeyRow[];
      }),

    productionCount: (workspace) =>
      engine.read(
        async (db) =>
          (
            await db
              .select({ n: count() })
              .from(apiKeys)
              .where(and(eq(c.workspaceId, workspace.workspaceId), eq(c.type, 'production')))
          )[0]?.n ?? 0,
      ),

    insert: async (workspace, row) => {
      await engine.write(async (db) => {
        await db.insert(apiKeys).values({ ...row, workspaceId: workspace.workspaceId } as never);
      });
      return tenantScope(row.id, workspace.workspaceId);
    },

    update: (scope, change) =>
      engine.write(
        async (db) =>
          ((
            await db
              .update(apiKeys)
              .set(change as never)
              .where(ownKey(scope))
          ).rowCount ?? 0) > 0,
      ),

    tokens: (scope) =>
      engine.read(
        async (db) => (await db.select().from(authTokens).where(eq(t.apiKeyId, scope.apiKeyId)).orderBy(asc(t.createdAt), asc(t.id))) as AuthTokenRow[],
      ),

    insertToken: (scope, row) =>
      engine.write(async (db) => {
        await db.insert(authTokens).values({ ...row, apiKeyId: scope.apiKeyId } as never);
        return undefined;
      }),

    deleteToken: (scope, id) =>
      engine.write(async (db) => {
        await db.delete(authTokens).where(and(eq(t.apiKeyId, scope.apiKeyId), eq(t.id, id)));
        return undefined;
      }),

    secret: (scope, name) =>
      engine.read(
        async (db) =>
          (
            (await db
              .select({ valueEnc: s.valueEnc })
              .from(apiKeySecrets)
              .where(and(eq(s.apiKeyId, scope.apiKeyId), eq(s.name, name)))
              .limit(1)) as Array<{ valueEnc: string }>
          )[0]?.valueEnc,
      ),

    secretNames: (scope) =>
      engine.read(
        async (db) =>
          new Set(
            ((await db.select({ name: s.name }).from(apiKeySecrets).where(eq(s.apiKeyId, scope.apiKeyId))) as Array<{ name: string }>).map((r) => r.name),
          ),
      ),

    setSecret: (scope, name, valueEnc, now) =>
      engine.write(async (db) => {
        await db
          .insert(apiKeySecrets)
          .values({ apiKeyId: scope.apiKeyId, name, valueEnc, updatedAt: now } as never)
          .onConflictDoUpdate({ target: [s.apiKeyId, s.name], set: { valueEnc, updatedAt: now } as never });
        return undefined;
      }),

    deleteSecret: (scope, name) =>
      engine.write(async (db) => {
        await db.delete(apiKeySecrets).where(and(eq(s.apiKeyId, scope.apiKeyId), eq(s.name, name)));
        return undefined;
      }),
  };
}
