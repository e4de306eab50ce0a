// The key's organizations, written once for both engines (engine.ts; test/pg/organizations.test.ts runs it on both
// and compares every answer).
import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import type { organizations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type OrganizationRow = typeof organizations.$inferSelect;

/** The key's organizations. */
export function organizationsRepo(engine: Engine) {
  const { organizations: o, crdtDocuments, judgments, agentExecutions, documentMigrations } = engine.t;
  const own = (scope: TenantScope, id: string) => and(eq(o.apiKeyId, scope.apiKeyId), eq(o.id, id));
  const byId = engine.prepare('organizations.byId', (db) =>
    db
      .select()
      .from(o)
      .where(and(eq(o.apiKeyId, sql.placeholder('apiKeyId')), eq(o.id, sql.placeholder('id')))),
  );
  // the tables without a foreign key to the organization, cleared with it (db/tenancy.ts, ORGANIZATION_DATA's 'deleted')
  const unlinked = [crdtDocuments, judgments, agentExecutions, documentMigrations];

  return {
    find: (scope: TenantScope, id: string) => engine.read((db) => byId.one(db, { apiKeyId: scope.apiKeyId, id })),

    /**
     * Adds it unless the key has one of that id (ON CONFLICT DO NOTHING: two units that both found it absent
     * cannot both insert, issue 43; on PostgreSQL at READ COMMITTED the second waits for the first's commit, then
     * does nothing); whether this call made it.
     */
    insert: (scope: TenantScope, row: Omit<OrganizationRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .insert(o)
              .values({ ...row, apiKeyId: scope.apiKeyId })
              .onConflictDoNothing(),
          ) > 0,
      ),

    /**
     * Takes the organizations' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite): an
     * update that merges into what it read waits for another's commit, then reads what it left.
     */
    lock: (scope: TenantScope, ids: readonly string[]) => engine.write((db) => engine.lockRows(db, ['organization', scope.apiKeyId], ids)),

    /** Changes the given fields; whether it existed. */
    update: (scope: TenantScope, id: string, change: Partial<Pick<OrganizationRow, 'name' | 'metadata' | 'disabled' | 'updatedAt'>>) =>
      engine.write(async (db) => engine.changed(await db.update(o).set(change).where(own(scope, id))) > 0),

    /**
     * Deletes it and everything in it; whether it existed. Most of its data goes by cascade; the tables without a
     * foreign key to it are cleared here: its collaborative content (the update log by cascade), judgments, agent
     * runs and document migrations.
     */
    delete: (scope: TenantScope, id: string) =>
      engine.write(async (db) => {
        if (!engine.changed(await db.delete(o).where(own(scope, id)))) return false;
        for (const table of unlinked) await db.delete(table).where(and(eq(table.apiKeyId, scope.apiKeyId), eq(table.organizationId, id)));
        return true;
      }),

    /** A page by id: the given ids only (or all), after `after`, at most `limit` rows. */
    page: (scope: TenantScope, options: { ids?: readonly string[] | undefined; after?: string | undefined; limit: number }) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(o.apiKeyId, scope.apiKeyId)];
        if (options.ids) where.push(inArray(o.id, [...options.ids]));
        if (options.after !== undefined) where.push(gt(o.id, options.after));
        return db
          .select()
          .from(o)
          .where(and(...where))
          .orderBy(asc(o.id))
          .limit(options.limit);
      }),
  };
}

export type OrganizationsRepo = ReturnType<typeof organizationsRepo>;
