// Agents and their executions, and what an execution reads besides them: the key's AI provider settings.
import { and, asc, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { keysetAfter, type Cursor } from '../pagination.ts';
import { compiledRows } from '../prepared.ts';
import { agentExecutions, agents, apiKeys } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type AgentRow = typeof agents.$inferSelect;
export type ExecutionRow = typeof agentExecutions.$inferSelect;
export type ExecutionStatus = ExecutionRow['status'];

/** An API key's agents, oldest first, from the start or after a cursor: compiled once per shape. */
const agentPage = compiledRows(agents, (db, shape: 'first' | 'after', columns) =>
  db
    .select(columns)
    .from(agents)
    .where(
      and(
        eq(agents.apiKeyId, sql.placeholder('apiKeyId')),
        shape === 'after' ? keysetAfter(agents.createdAt, agents.id, [sql.placeholder('afterCreatedAt'), sql.placeholder('afterId')], false) : undefined,
      ),
    )
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .limit(sql.placeholder('limit')),
);

/** An executions page of one filter shape, compiled once. */
const executionPage = compiledRows(
  agentExecutions,
  (db, shape: `${'<' | '>'}${'' | '+after'}${'' | '+agent'}${'' | '+organization'}${'' | '+document'}${'' | '+status'}`, columns) => {
    const e = agentExecutions;
    const p = sql.placeholder;
    const descending = shape.startsWith('<');
    const where: (SQL | undefined)[] = [eq(e.apiKeyId, p('apiKeyId'))];
    if (shape.includes('+agent')) where.push(eq(e.agentId, p('agentId')));
    if (shape.includes('+organization')) where.push(eq(e.organizationId, p('organizationId')));
    if (shape.includes('+document')) where.push(eq(e.documentId, p('documentId')));
    if (shape.includes('+status')) where.push(eq(e.status, p('status')));
    if (shape.includes('+after')) where.push(keysetAfter(e.startedAt, e.id, [p('afterStartedAt'), p('afterId')], descending));
    const direction = descending ? desc : asc;
    return db
      .select(columns)
      .from(e)
      .where(and(...where))
      .orderBy(direction(e.startedAt), direction(e.id))
      .limit(p('limit'));
  },
);

const ownAgent = (scope: TenantScope, id: string) => and(eq(agents.apiKeyId, scope.apiKeyId), eq(agents.id, id));
const ownExecution = (scope: TenantScope, id: string) => and(eq(agentExecutions.apiKeyId, scope.apiKeyId), eq(agentExecutions.id, id));

/** The key's agents and executions. */
export function agentsRepo(engine: SqliteEngine) {
  return {
    find: (scope: TenantScope, id: string) => engine.read((db) => db.select().from(agents).where(ownAgent(scope, id)).get()),

    /** Adds the agent unless its id is taken; whether it was added. */
    insert: (scope: TenantScope, row: Omit<AgentRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          db
            .insert(agents)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .onConflictDoNothing()
            .run().changes > 0,
      ),

    update: (scope: TenantScope, id: string, row: Omit<AgentRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .update(agents)
            .set({ ...row, apiKeyId: scope.apiKeyId })
            .where(ownAgent(scope, id))
            .run(),
      ),

    /** Deletes the agent (its executions stay); whether it existed. */
    delete: (scope: TenantScope, id: string) => engine.write((db) => db.delete(agents).where(ownAgent(scope, id)).run().changes > 0),

    /** Oldest first (by createdAt, then id), after `cursor`, at most `limit`. */
    page: (scope: TenantScope, cursor: Cursor | null, limit: number) =>
      engine.read((db) => agentPage(db, cursor ? 'after' : 'first', { apiKeyId: scope.apiKeyId, afterCreatedAt: cursor?.[0], afterId: cursor?.[1], limit })),

    findExecution: (scope: TenantScope, id: string) => engine.read((db) => db.select().from(agentExecutions).where(ownExecution(scope, id)).get()),

    insertExecution: (scope: TenantScope, row: Omit<ExecutionRow, 'apiKeyId'>) =>
      engine.write(
        (db) =>
          void db
            .insert(agentExecutions)
            .values({ ...row, apiKeyId: scope.apiKeyId })
            .run(),
      ),

    /**
     * Records a running execution's outcome; false (nothing written) once it is no longer running: ended as
     * abandoned by a look for expired leases while its runner was still at work (the fence on completion).
     */
    completeExecution: (scope: TenantScope, id: string, change: Partial<ExecutionRow>) =>
      engine.write(
        (db) =>
          db
            .update(agentExecutions)
            .set({ ...change, apiKeyId: scope.apiKeyId })
            .where(and(ownExecution(scope, id), eq(agentExecutions.status, 'running')))
            .run().changes > 0,
      ),

    /** By startedAt (then id) in `order`, filtered, after `cursor`, at most `limit`. */
    executions: (
      scope: TenantScope,
      filters: {
        order: 'asc' | 'desc';
        agentId?: string | undefined;
        organizationId?: string | undefined;
        documentId?: string | undefined;
        status?: ExecutionStatus | undefined;
      },
      cursor: Cursor | null,
      limit: number,
    ) =>
      engine.read((db) => {
        const shape =
          `${filters.order === 'asc' ? '>' : '<'}${cursor ? '+after' : ''}${filters.agentId !== undefined ? '+agent' : ''}${filters.organizationId !== undefined ? '+organization' : ''}${
            filters.documentId !== undefined ? '+document' : ''
          }${filters.status !== undefined ? '+status' : ''}` as const;
        return executionPage(db, shape, { ...filters, apiKeyId: scope.apiKeyId, afterStartedAt: cursor?.[0], afterId: cursor?.[1], limit });
      }),

    /** Holds a running execution until `leaseUntil` (its runner renews the lease while it runs); false once it ended. */
    renewLease: (scope: TenantScope, id: string, leaseUntil: number) =>
      engine.write(
        (db) =>
          db
            .update(agentExecutions)
            .set({ leaseUntil })
            .where(and(ownExecution(scope, id), eq(agentExecutions.status, 'running')))
            .run().changes > 0,
      ),

    /**
     * Ends as `error` with `message` the executions whose runner is gone: running under a lease held until before
     * `heldBefore`, or none (every running one at the start of the database's only instance: `heldBefore`
     * MAX_SAFE_INTEGER). Not a tenant's query: it runs over the whole database, before any request at the start.
     */
    endAbandoned: (message: string, now: number, heldBefore: number) =>
      engine.write(
        (db) =>
          db
            .update(agentExecutions)
            .set({ status: 'error', message, completedAt: now, durationMs: sql`${now} - ${agentExecutions.startedAt}`, leaseUntil: null })
            .where(and(eq(agentExecutions.status, 'running'), or(isNull(agentExecutions.leaseUntil), lt(agentExecutions.leaseUntil, heldBefore))))
            .run().changes,
      ),

    /** The key's AI provider settings (base URLs per provider). */
    providerSettings: (scope: TenantScope) =>
      engine.read((db) => db.select({ settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, scope.apiKeyId)).get()?.settings.aiProviders),
  };
}

export type AgentsRepo = ReturnType<typeof agentsRepo>;
