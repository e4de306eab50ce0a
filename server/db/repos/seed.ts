// What `hearth seed` asks of the storage besides the services it goes through (default credentials, webhook
// configuration and endpoints): the key to fill, whether its demo set is there already, a bulk load of the set's rows
// (db/bulk.ts), and the undoing of a seed that failed.
import { and, eq, inArray } from 'drizzle-orm';
import { openBulkLoad, type BulkLoad } from '../bulk.ts';
import { apiKeys, crdtDocuments, organizations, users, webhookConfigs, webhookEndpoints } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type { BulkLoad, BulkRow, BulkTable, BulkWriter } from '../bulk.ts';
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What a seed wrote, to undo it. */
export interface SeedWrites {
  organizationIds: string[];
  userIds: string[];
  webhookEndpointIds: string[];
  /** The seed made the key's advanced webhook configuration (it had none). */
  webhookConfigCreated: boolean;
}

export function seedRepo(engine: SqliteEngine) {
  return {
    /** The API key an operator named (the seed's target), or undefined. */
    apiKey: (apiKeyId: string) => engine.read((db) => db.select().from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get()),

    /** The first of these organizations the key holds already, or undefined. */
    presentOrganization: (scope: TenantScope, organizationIds: string[]) =>
      engine.read(
        (db) =>
          db
            .select({ id: organizations.id })
            .from(organizations)
            .where(and(eq(organizations.apiKeyId, scope.apiKeyId), inArray(organizations.id, organizationIds)))
            .get()?.id,
      ),

    /** Whether the key's advanced webhooks are on, off, or not configured. */
    webhookConfig: (scope: TenantScope) =>
      engine.read((db) => db.select({ isEnabled: webhookConfigs.isEnabled }).from(webhookConfigs).where(eq(webhookConfigs.apiKeyId, scope.apiKeyId)).get()),

    /** A bulk load of rows on the main connection (no server may run on the data dir meanwhile): db/bulk.ts. */
    openBulkLoad: (options: { batchRows: number }): BulkLoad => openBulkLoad(engine, options.batchRows),

    /** Deletes what a failed seed committed: its organizations (and by cascade everything in them), CRDT documents, users, endpoints and configuration. */
    remove: (scope: TenantScope, set: SeedWrites) =>
      engine.write((db) => {
        const apiKeyId = scope.apiKeyId;
        const { organizationIds, userIds } = set;
        // organizations cascade to everything in them; CRDT documents and users are keyed by the API key only
        db.delete(crdtDocuments)
          .where(and(eq(crdtDocuments.apiKeyId, apiKeyId), inArray(crdtDocuments.organizationId, organizationIds)))
          .run();
        db.delete(organizations)
          .where(and(eq(organizations.apiKeyId, apiKeyId), inArray(organizations.id, organizationIds)))
          .run();
        for (let i = 0; i < userIds.length; i += 500)
          db.delete(users)
            .where(and(eq(users.apiKeyId, apiKeyId), inArray(users.id, userIds.slice(i, i + 500))))
            .run();
        if (set.webhookEndpointIds.length > 0)
          db.delete(webhookEndpoints)
            .where(and(eq(webhookEndpoints.apiKeyId, apiKeyId), inArray(webhookEndpoints.id, set.webhookEndpointIds)))
            .run();
        if (set.webhookConfigCreated) db.delete(webhookConfigs).where(eq(webhookConfigs.apiKeyId, apiKeyId)).run();
      }),
  };
}
