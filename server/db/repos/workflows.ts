// Workflow definitions, with their tombstones (a deleted definition keeps its id until purged).
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import { workflowDefinitions } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type DefinitionRow = typeof workflowDefinitions.$inferSelect;

const own = (scope: TenantScope, definitionId: string) =>
  and(eq(workflowDefinitions.apiKeyId, scope.apiKeyId), eq(workflowDefinitions.definitionId, definitionId));

/** The key's workflow definitions. */
export function workflowsRepo(engine: SqliteEngine) {
  return {
    /** The definition, active or tombstoned. */
    find: (scope: TenantScope, definitionId: string) => engine.read((db) => db.select().from(workflowDefinitions).where(own(scope, definitionId)).get()),

    /** Adds it; the caller checked the id is free. */
    insert: (scope: TenantScope, row: Omit<DefinitionRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .insert(workflowDefinitions)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .run(),
      ),

    /** Replaces the stored definition with `row`. */
    replace: (scope: TenantScope, definitionId: string, row: Omit<DefinitionRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .update(workflowDefinitions)
            .set({ ...row, apiKeyId: scope.apiKeyId })
            .where(own(scope, definitionId))
            .run(),
      ),

    /** Leaves a tombstone: the row stays, `deleted`. */
    tombstone: (scope: TenantScope, definitionId: string, at: number) =>
      engine.write((db) => void db.update(workflowDefinitions).set({ status: 'deleted', updatedAt: at }).where(own(scope, definitionId)).run()),

    /** Removes the row (a tombstone too). */
    purge: (scope: TenantScope, definitionId: string) => engine.write((db) => void db.delete(workflowDefinitions).where(own(scope, definitionId)).run()),

    /** Active definitions by id, after `after`, at most `limit`. */
    activePage: (scope: TenantScope, after: string | undefined, limit: number) =>
      engine.read((db) => {
        const where: SQL[] = [eq(workflowDefinitions.apiKeyId, scope.apiKeyId), eq(workflowDefinitions.status, 'active')];
        if (after !== undefined) where.push(gt(workflowDefinitions.definitionId, after));
        return db
          .select()
          .from(workflowDefinitions)
          .where(and(...where))
          .orderBy(asc(workflowDefinitions.definitionId))
          .limit(limit)
          .all();
      }),
  };
}

export type WorkflowsRepo = ReturnType<typeof workflowsRepo>;
