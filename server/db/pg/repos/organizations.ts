// The key's organizations on PostgreSQL: the same repository as ../../repos/organizations.ts (its type is the
// contract, test/pg/organizations.test.ts runs both on the same calls and compares), written for an engine whose statements
// are awaited. The first repository ported; the others follow its shape (docs/storage.md, "The PostgreSQL engine").
import { and, asc, eq, gt, inArray, type SQL } from 'drizzle-orm';
import type { OrganizationRow, OrganizationsRepo } from '../../repos/organizations.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: organizations, c } = pgTableFor('organizations');
const cleared = (['crdtDocuments', 'judgments', 'agentExecutions', 'documentMigrations'] as const).map((key) => pgTableFor(key));

const own = (scope: TenantScope, id: string) => and(eq(c.apiKeyId, scope.apiKeyId), eq(c.id, id));

export function organizationsRepoPg(engine: PgEngine): OrganizationsRepo {
  return {
    find: (scope, id) => engine.read(async (db) => (await db.select().from(organizations).where(own(scope, id)).limit(1))[0] as OrganizationRow | undefined),

    // a unit at READ COMMITTED that found it absent waits here for the other creator's commit, then does nothing
    insert: (scope, row) =>
      engine.write(
        async (db) =>
          ((
            await db
              .insert(organizations)
              .values({ ...row, apiKeyId: scope.apiKeyId } as never)
              .onConflictDoNothing()
          ).rowCount ?? 0) > 0,
      ),

    update: (scope, id, change) =>
      engine.write(
        async (db) =>
          ((
            await db
              .update(organizations)
              .set(change as never)
              .where(own(scope, id))
          ).rowCount ?? 0) > 0,
      ),

    // as on SQLite: most of its data goes by cascade, the tables without a foreign key to it are cleared here
    delete: (scope, id) =>
      engine.write(async (db) => {
        if (!(await db.delete(organizations).where(own(scope, id))).rowCount) return false;
        for (const { table, c: columns } of cleared) {
          await db.delete(table).where(and(eq(columns.apiKeyId, scope.apiKeyId), eq(columns.organizationId, id)));
        }
        return true;
      }),

    page: (scope, options) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(c.apiKeyId, scope.apiKeyId)];
        if (options.ids) where.push(inArray(c.id, [...options.ids]));
        if (options.after !== undefined) where.push(gt(c.id, options.after));
        return (await db
          .select()
          .from(organizations)
          .where(and(...where))
          .orderBy(asc(c.id))
          .limit(options.limit)) as OrganizationRow[];
      }),
  };
}
