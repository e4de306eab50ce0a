// The key's workflow definitions on PostgreSQL: the same repository as ../../repos/workflows.ts (its type is the
// contract; test/pg/workflows.test.ts runs both on the same calls and compares).
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { DefinitionRow, WorkflowsRepo } from '../../repos/workflows.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: workflowDefinitions, c } = pgTableFor('workflowDefinitions');

const own = (scope: TenantScope, definitionId: string) => and(eq(c.apiKeyId, scope.apiKeyId), eq(c.definitionId, definitionId));

export function workflowsRepoPg(engine: PgEngine): WorkflowsRepo {
  return {
    find: (scope, definitionId) =>
      engine.read(async (db) => (await db.select().from(workflowDefinitions).where(own(scope, definitionId)).limit(1))[0] as DefinitionRow | undefined),

    insert: (scope, row) => engine.write(async (db) => void (await db.insert(workflowDefinitions).values({ ...row, apiKeyId: scope.apiKeyId } as never))),

    replace: (scope, definitionId, row) =>
      engine.write(
        async (db) =>
          void (await db
            .update(workflowDefinitions)
            .set({ ...row, apiKeyId: scope.apiKeyId } as never)
            .where(own(scope, definitionId))),
      ),

    tombstone: (scope, definitionId, at) =>
      engine.write(
        async (db) =>
          void (await db
            .update(workflowDefinitions)
            .set({ status: 'deleted', updatedAt: at } as never)
            .where(own(scope, definitionId))),
      ),

    purge: (scope, definitionId) => engine.write(async (db) => void (await db.delete(workflowDefinitions).where(own(scope, definitionId)))),

    activePage: (scope, after, limit) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(c.apiKeyId, scope.apiKeyId), eq(c.status, 'active')];
        if (after !== undefined) where.push(gt(c.definitionId, after));
        return (await db
          .select()
          .from(workflowDefinitions)
          .where(and(...where))
          .orderBy(asc(c.definitionId))
          .limit(limit)) as DefinitionRow[];
      }),
  };
}
