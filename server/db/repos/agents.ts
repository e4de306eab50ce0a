// Agents and their executions, and what an execution reads besides them: the key's AI provider settings. Written
// once for both engines (engine.ts; test/pg/agents.test.ts runs it on both and compares every answer).
import { and, asc, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Engine, Prepared } from '../engine.ts';
import { keysetAfter, type Cursor } from '../pagination.ts';
import type { agentExecutions, agents } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type AgentRow = typeof agents.$inferSelect;
export type ExecutionRow = typeof agentExecutions.$inferSelect;
export type ExecutionStatus = ExecutionRow['status'];

/** The filters an executions page may use; each combination (with its order and cursor) is one prepared statement. */
const FILTERS = ['agentId', 'organizationId', 'documentId', 'status'] as const;

/** The key's agents and executions. */
export function agentsRepo(engine: Engine) {
  const { agents: a, agentExecutions: e, apiKeys } = engine.t;
  const p = sql.placeholder;
  const ownAgent = (scope: TenantScope, id: string) => and(eq(a.apiKeyId, scope.apiKeyId), eq(a.id, id));
  const ownExecution = (scope: TenantScope, id: string) => and(eq(e.apiKeyId, scope.apiKeyId), eq(e.id, id));

  /** An API key's agents, oldest first, from the start or after a cursor: prepared once per shape. */
  const agentPage = (after: boolean) =>
    engine.prepare(after ? 'agents.pageAfter' : 'agents.page', (db, t) =>
      db
        .select()
        .from(t.agents)
        .where(
          and(
            eq(t.agents.apiKeyId, p('apiKeyId')),
            after ? keysetAfter(t.agents.createdAt, t.agents.id, [p('afterCreatedAt'), p('afterId')], false) : undefined,
          ),
        )
        .orderBy(asc(t.agents.createdAt), asc(t.agents.id))
        .limit(p('limit')),
    );
  const agentPages = { first: agentPage(false), after: agentPage(true) };

  /** An executions page of one shape (order, cursor, filters used), prepared the first time it is asked for. */
  const executionPages = new Map<string, Prepared<ExecutionRow>>();
  const executionPage = (descending: boolean, after: boolean, filters: ReadonlyArray<(typeof FILTERS)[number]>) => {
    // the filters by their initials: PostgreSQL keeps 63 characters of a statement's name
    const name = `agents.executions.${descending ? 'desc' : 'asc'}${after ? '.after' : ''}${filters.length ? `.${filters.map((f) => f[0]).join('')}` : ''}`;
    let prepared = executionPages.get(name);
    if (!prepared)
      executionPages.set(
        name,
        (prepared = engine.prepare(name, (db, t) => {
          const x = t.agentExecutions;
          const where: (SQL | undefined)[] = [eq(x.apiKeyId, p('apiKeyId'))];
          for (const filter of filters) where.push(eq(x[filter], p(filter)));
          if (after) where.push(keysetAfter(x.startedAt, x.id, [p('afterStartedAt'), p('afterId')], descending));
          const direction = descending ? desc : asc;
          return db
            .select()
            .from(x)
            .where(and(...where))
            .orderBy(direction(x.startedAt), direction(x.id))
            .limit(p('limit'));
        })),
      );
    return prepared;
  };

  return {
    find: (scope: TenantScope, id: string) => engine.read(async (db) => (await db.select().from(a).where(ownAgent(scope, id)).limit(1))[0]),

    /** Adds the agent unless its id is taken; whether it was added. */
    insert: (scope: TenantScope, row: Omit<AgentRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .insert(a)
              .values({ ...row, apiKeyId: scope.apiKeyId })
              .onConflictDoNothing(),
          ) > 0,
      ),

    /**
     * Takes the agent's key lock for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write
     * unit holds the database): an update that merges into what it read waits for another's commit, then reads what
     * it left.
     */
    lock: (scope: TenantScope, id: string) => engine.write((db) => engine.lockRows(db, ['agent', scope.apiKeyId], [id])),

    update: (scope: TenantScope, id: string, row: Omit<AgentRow, 'apiKeyId'>) =>
      engine.write(
        async (db) =>
          void (await db
            .update(a)
            .set({ ...row, apiKeyId: scope.apiKeyId })
            .where(ownAgent(scope, id))),
      ),

    /** Deletes the agent (its executions stay); whether it existed. */
    delete: (scope: TenantScope, id: string) => engine.write(async (db) => engine.changed(await db.delete(a).where(ownAgent(scope, id))) > 0),

    /** Oldest first (by createdAt, then id), after `cursor`, at most `limit`. */
    page: (scope: TenantScope, cursor: Cursor | null, limit: number) =>
      engine.read((db) =>
        (cursor ? agentPages.after : agentPages.first).all(db, { apiKeyId: scope.apiKeyId, afterCreatedAt: cursor?.[0], afterId: cursor?.[1], limit }),
      ),

    findExecution: (scope: TenantScope, id: string) => engine.read(async (db) => (await db.select().from(e).where(ownExecution(scope, id)).limit(1))[0]),

    insertExecution: (scope: TenantScope, row: Omit<ExecutionRow, 'apiKeyId'>) =>
      engine.write(async (db) => void (await db.insert(e).values({ ...row, apiKeyId: scope.apiKeyId }))),

    /**
     * Records a running execution's outcome; false (nothing written) once it is no longer running: ended as
     * abandoned by a look for expired leases while its runner was still at work (the fence on completion).
     */
    completeExecution: (scope: TenantScope, id: string, change: Partial<ExecutionRow>) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .update(e)
              .set({ ...change, apiKeyId: scope.apiKeyId })
              .where(and(ownExecution(scope, id), eq(e.status, 'running'))),
          ) > 0,
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
      engine.read((db) =>
        executionPage(
          filters.order !== 'asc',
          cursor !== null,
          FILTERS.filter((filter) => filters[filter] !== undefined),
        ).all(db, { ...filters, apiKeyId: scope.apiKeyId, afterStartedAt: cursor?.[0], afterId: cursor?.[1], limit }),
      ),

    /** Holds a running execution until `leaseUntil` (its runner renews the lease while it runs); false once it ended. */
    renewLease: (scope: TenantScope, id: string, leaseUntil: number) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .update(e)
              .set({ leaseUntil })
              .where(and(ownExecution(scope, id), eq(e.status, 'running'))),
          ) > 0,
      ),

    /**
     * Ends as `error` with `message` the executions whose runner is gone: running under a lease held until before
     * `heldBefore`, or none (every running one at the start of the database's only instance: `heldBefore`
     * MAX_SAFE_INTEGER). Not a tenant's query: it runs over the whole database, before any request at the start.
     */
    endAbandoned: (message: string, now: number, heldBefore: number) =>
      engine.write(async (db) =>
        engine.changed(
          await db
            .update(e)
            .set({ status: 'error', message, completedAt: now, durationMs: sql`${now} - ${e.startedAt}`, leaseUntil: null })
            .where(and(eq(e.status, 'running'), or(isNull(e.leaseUntil), lt(e.leaseUntil, heldBefore)))),
        ),
      ),

    /** The key's AI provider settings (base URLs per provider). */
    providerSettings: (scope: TenantScope) =>
      engine.read(
        async (db) => (await db.select({ settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, scope.apiKeyId)).limit(1))[0]?.settings.aiProviders,
      ),
  };
}

export type AgentsRepo = ReturnType<typeof agentsRepo>;
