// Workflow definitions, with their tombstones (a deleted definition keeps its id until purged). Written once for
// both engines (engine.ts; test/pg/workflows.test.ts runs it on both and compares every answer).
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import type { workflowDefinitions } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type DefinitionRow = typeof workflowDefinitions.$inferSelect;

/** The key's workflow definitions. */
export function workflowsRepo(engine: Engine) {
  const { workflowDefinitions: w } = engine.t;
  const own = (scope: TenantScope, definitionId: string) => and(eq(w.apiKeyId, scope.apiKeyId), eq(w.definitionId, definitionId));
  return {
    /** The definition, active or tombstoned. */
    find: (scope: TenantScope, definitionId: string) => engine.read(async (db) => (await db.select().from(w).where(own(scope, definitionId)).limit(1))[0]),

    /**
     * Takes the definition's key lock for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose
     * write unit holds the database): its create, update and delete then run one after another, each reading the row
     * as the last one left it.
     */
    lock: (scope: TenantScope, definitionId: string) => engine.write((db) => engine.lockRows(db, ['workflow', scope.apiKeyId], [definitionId])),

    /** Adds it; the caller checked the id is free, under the definition's lock. */
    insert: (scope: TenantScope, row: Omit<DefinitionRow, 'apiKeyId'>) =>
      engine.write(async (db) => void (await db.insert(w).values({ ...row, apiKeyId: scope.apiKeyId }))),

    /** Replaces the stored definition with `row`. */
    replace: (scope: TenantScope, definitionId: string, row: Omit<DefinitionRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          void (await db
            .update(w)
            .set({ ...row, apiKeyId: scope.apiKeyId })
            .where(own(scope, definitionId))),
      ),

    /** Leaves a tombstone: the row stays, `deleted`. */
    tombstone: (scope: TenantScope, definitionId: string, at: number) =>
      engine.write(async (db) => void (await db.update(w).set({ status: 'deleted', updatedAt: at }).where(own(scope, definitionId)))),

    /** Removes the row (a tombstone too). */
    purge: (scope: TenantScope, definitionId: string) => engine.write(async (db) => void (await db.delete(w).where(own(scope, definitionId)))),

    /** Active definitions by id, after `after`, at most `limit`. */
    activePage: (scope: TenantScope, after: string | undefined, limit: number) =>
      engine.read(async (db) => {
        const where: SQL[] = [eq(w.apiKeyId, scope.apiKeyId), eq(w.status, 'active')];
        if (after !== undefined) where.push(gt(w.definitionId, after));
        return db
          .select()
          .from(w)
          .where(and(...where))
          .orderBy(asc(w.definitionId))
          .limit(limit);
      }),
  };
}

export type WorkflowsRepo = ReturnType<typeof workflowsRepo>;
