import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { preparedFor } from '../prepared.ts';
import { agentExecutions, crdtDocuments, documentMigrations, judgments, organizations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type OrganizationRow = typeof organizations.$inferSelect;

const byId = preparedFor((db) =>
  db
    .select()
    .from(organizations)
    .where(and(eq(organizations.apiKeyId, sql.placeholder('apiKeyId')), eq(organizations.id, sql.placeholder('id'))))
    .prepare(),
);

/** The organization, on a given connection (the access facts and notifications/add's first read read it inside their own step). */
export const findOrganizationOn = (db: Db, apiKeyId: string, id: string): OrganizationRow | undefined => byId(db).get({ apiKeyId, id });

const own = (scope: TenantScope, id: string) => and(eq(organizations.apiKeyId, scope.apiKeyId), eq(organizations.id, id));

/** The key's organizations. */
export function organizationsRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, id: string) => engine.read((db) => findOrganizationOn(db, scope.apiKeyId, id)),

    /**
     * Adds it unless the key has one of that id (ON CONFLICT DO NOTHING: two units that both found it absent
     * cannot both insert, issue 43); whether this call made it.
     */
    insert: (scope: TenantScope, row: Omit<OrganizationRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          db
            .insert(organizations)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .onConflictDoNothing()
            .run().changes > 0,
      ),

    /** Changes the given fields; whether it existed. */
    update: (scope: TenantScope, id: string, change: Partial<Pick<OrganizationRow, 'name' | 'metadata' | 'disabled' | 'updatedAt'>>) =>
      engine.write((db) => db.update(organizations).set(change).where(own(scope, id)).run().changes > 0),

    /**
     * Deletes it and everything in it; whether it existed. Most of its data goes by cascade; the tables without a
     * foreign key to it are cleared here (db/tenancy.ts, ORGANIZATION_DATA's 'deleted'): its collaborative content
     * (the update log by cascade), judgments, agent runs and document migrations.
     */
    delete: (scope: TenantScope, id: string) =>
      engine.write((db) => {
        if (!db.delete(organizations).where(own(scope, id)).run().changes) return false;
        db.delete(crdtDocuments)
          .where(and(eq(crdtDocuments.apiKeyId, scope.apiKeyId), eq(crdtDocuments.organizationId, id)))
          .run();
        db.delete(judgments)
          .where(and(eq(judgments.apiKeyId, scope.apiKeyId), eq(judgments.organizationId, id)))
          .run();
        db.delete(agentExecutions)
          .where(and(eq(agentExecutions.apiKeyId, scope.apiKeyId), eq(agentExecutions.organizationId, id)))
          .run();
        db.delete(documentMigrations)
          .where(and(eq(documentMigrations.apiKeyId, scope.apiKeyId), eq(documentMigrations.organizationId, id)))
          .run();
        return true;
      }),

    /** A page by id: the given ids only (or all), after `after`, at most `limit` rows. */
    page: (scope: TenantScope, options: { ids?: readonly string[] | undefined; after?: string | undefined; limit: number }) =>
      engine.read((db) => {
        const where: SQL[] = [eq(organizations.apiKeyId, scope.apiKeyId)];
        if (options.ids) where.push(inArray(organizations.id, [...options.ids]));
        if (options.after !== undefined) where.push(gt(organizations.id, options.after));
        return db
          .select()
          .from(organizations)
          .where(and(...where))
          .orderBy(asc(organizations.id))
          .limit(options.limit)
          .all();
      }),
  };
}

export type OrganizationsRepo = ReturnType<typeof organizationsRepo>;
