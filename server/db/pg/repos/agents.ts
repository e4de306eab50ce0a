// The key's agents and executions on PostgreSQL: the same repository as ../../repos/agents.ts (its type is the
// contract; test/pg/agents.test.ts runs both on the same calls and compares).
import { and, asc, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { AgentRow, AgentsRepo, ExecutionRow } from '../../repos/agents.ts';
import type { ApiKeyRow } from '../../repos/keys.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { pgTableFor } from '../schema.ts';

const { table: agents, c: a } = pgTableFor('agents');
const { table: agentExecutions, c: e } = pgTableFor('agentExecutions');
const { table: apiKeys, c: k } = pgTableFor('apiKeys');

const ownAgent = (scope: TenantScope, id: string) => and(eq(a.apiKeyId, scope.apiKeyId), eq(a.id, id));
const ownExecution = (scope: TenantScope, id: string) => and(eq(e.apiKeyId, scope.apiKeyId), eq(e.id, id));

export function agentsRepoPg(engine: PgEngine): AgentsRepo {
  return {
    find: (scope, id) => engine.read(async (db) => (await db.select().from(agents).where(ownAgent(scope, id)).limit(1))[0] as AgentRow | undefined),

    insert: (scope, row) =>
      engine.write(
        async (db) =>
          ((
            await db
              .insert(agents)
              .values({ ...row, apiKeyId: scope.apiKeyId } as never)
              .onConflictDoNothing()
          ).rowCount ?? 0) > 0,
      ),

    update: (scope, id, row) =>
      engine.write(
        async (db) =>
          void (await db
            .update(agents)
            .set({ ...row, apiKeyId: scope.apiKeyId } as never)
            .where(ownAgent(scope, id))),
      ),

    delete: (scope, id) => engine.write(async (db) => ((await db.delete(agents).where(ownAgent(scope, id))).rowCount ?? 0) > 0),

    page: (scope, cursor, limit) =>
      engine.read(
        async (db) =>
          (await db
            .select()
            .from(agents)
            .where(and(eq(a.apiKeyId, scope.apiKeyId), keysetAfterPg(a.createdAt, a.id, cursor, false)))
            .orderBy(asc(a.createdAt), asc(a.id))
            .limit(limit)) as AgentRow[],
      ),

    findExecution: (scope, id) =>
      engine.read(async (db) => (await db.select().from(agentExecutions).where(ownExecution(scope, id)).limit(1))[0] as ExecutionRow | undefined),

    insertExecution: (scope, row) => engine.write(async (db) => void (await db.insert(agentExecutions).values({ ...row, apiKeyId: scope.apiKeyId } as never))),

    completeExecution: (scope, id, change) =>
      engine.write(
        async (db) =>
          ((
            await db
              .update(agentExecutions)
              .set({ ...change, apiKeyId: scope.apiKeyId } as never)
              .where(and(ownExecution(scope, id), eq(e.status, 'running')))
          ).rowCount ?? 0) > 0,
      ),

    executions: (scope, filters, cursor, limit) =>
      engine.read(async (db) => {
        const descending = filters.order !== 'asc';
        const where: (SQL | undefined)[] = [eq(e.apiKeyId, scope.apiKeyId)];
        if (filters.agentId !== undefined) where.push(eq(e.agentId, filters.agentId));
        if (filters.organizationId !== undefined) where.push(eq(e.organizationId, filters.organizationId));
        if (filters.documentId !== undefined) where.push(eq(e.documentId, filters.documentId));
        if (filters.status !== undefined) where.push(eq(e.status, filters.status));
        where.push(keysetAfterPg(e.startedAt, e.id, cursor, descending));
        const direction = descending ? desc : asc;
        return (await db
          .select()
          .from(agentExecutions)
          .where(and(...where))
          .orderBy(direction(e.startedAt), direction(e.id))
          .limit(limit)) as ExecutionRow[];
      }),

    renewLease: (scope, id, leaseUntil) =>
      engine.write(
        async (db) =>
          ((
            await db
              .update(agentExecutions)
              .set({ leaseUntil } as never)
              .where(and(ownExecution(scope, id), eq(e.status, 'running')))
          ).rowCount ?? 0) > 0,
      ),

    endAbandoned: (message, now, heldBefore) =>
      engine.write(
        async (db) =>
          (
            await db
              .update(agentExecutions)
              .set({ status: 'error', message, completedAt: now, durationMs: sql`${now}::bigint - ${e.startedAt}`, leaseUntil: null } as never)
              .where(and(eq(e.status, 'running'), or(isNull(e.leaseUntil), lt(e.leaseUntil, heldBefore))))
          ).rowCount ?? 0,
      ),

    providerSettings: (scope) =>
      engine.read(
        async (db) =>
          ((await db.select({ settings: k.settings }).from(apiKeys).where(eq(k.id, scope.apiKeyId)).limit(1))[0] as Pick<ApiKeyRow, 'settings'> | undefined)
            ?.settings.aiProviders,
      ),
  };
}
