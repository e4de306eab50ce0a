import { eq, sql } from 'drizzle-orm';
import { preparedFor } from '../prepared.ts';
import { apiKeys } from '../schema.ts';
import { tenantScope, type Grant, type TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

const workspaceOfKey = preparedFor((db) =>
  db
    .select({ workspaceId: apiKeys.workspaceId })
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
);

/** API keys, and the scopes they give. */
export function keysRepo(engine: SqliteEngine) {
  return {
    /**
     * The scope of a key whose credentials, user token or ticket were verified, or that the server acts for itself
     * (a job, a tool): undefined when there is no such key.
     */
    scopeFor: async (apiKeyId: string, grant: Grant = { kind: 'key' }): Promise<TenantScope | undefined> => {
      const row = await engine.read((db) => workspaceOfKey(db).get({ id: apiKeyId }));
      return row ? tenantScope(apiKeyId, row.workspaceId, grant) : undefined;
    },
    /** The scope of a key row that authentication just verified (no lookup). */
    scopeOf: (row: { id: string; workspaceId: string }, grant: Grant = { kind: 'key' }): TenantScope => tenantScope(row.id, row.workspaceId, grant),
  };
}
