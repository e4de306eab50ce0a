// Document migrations: the jobs that move a document's data to a new id (services/migrations.ts), and the queue
// the job runner takes them from. The queue's methods span every key: the runner works for all of them. Written once
// for both engines (engine.ts; test/pg/document-migrations.test.ts runs it on both and compares every answer).
import { and, asc, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Engine, Q } from '../engine.ts';
import type { documentMigrations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type MigrationRow = typeof documentMigrations.$inferSelect;

/** The key's document migrations, and the queue of all keys' pending ones. */
export function documentMigrationsRepo(engine: Engine) {
  const { documentMigrations: m } = engine.t;

  /** Jobs left in_progress whose holder is gone: a crash (at start, every one: `heldBefore` Infinity) or an expired lease. */
  const abandoned = (heldBefore: number) => and(eq(m.status, 'in_progress'), or(isNull(m.leaseUntil), lt(m.leaseUntil, heldBefore)));

  /**
   * The job as its holder read it: lease_until still the value its claim set. A lease that ran out was put back
   * (lease_until cleared) or taken over (a new lease_until), and a job completed or failed has none: the old holder's
   * outcome must not apply then (a cluster's fence).
   */
  const held = (id: string, leaseUntil: number | null) => and(eq(m.id, id), leaseUntil === null ? isNull(m.leaseUntil) : eq(m.leaseUntil, leaseUntil));

  /** Jobs abandoned (see `abandoned`): failed once interrupted `maxAttempts` times, else pending again; in the caller's unit of work. */
  const recover = async (db: Q, maxAttempts: number, now: number, heldBefore: number) => {
    await db
      .update(m)
      .set({ status: 'failed', error: `interrupted ${maxAttempts} times; not retried`, completedAt: now, leaseUntil: null })
      .where(and(abandoned(heldBefore), gte(m.attempts, maxAttempts)));
    await db
      .update(m)
      .set({ status: 'pending', leaseUntil: null })
      .where(and(abandoned(heldBefore), lt(m.attempts, maxAttempts)));
  };

  return {
    insert: (scope: TenantScope, row: Omit<MigrationRow, 'apiKeyId'>) =>
      engine.write(async (db) => {
        await db.insert(m).values({ ...row, apiKeyId: scope.apiKeyId });
      }),

    find: (scope: TenantScope, organizationId: string, id: string) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(m)
              .where(and(eq(m.id, id), eq(m.apiKeyId, scope.apiKeyId), eq(m.organizationId, organizationId)))
              .limit(1)
          )[0],
      ),

    /**
     * Marks it completed (in the unit of work that moved the document), if its holder still holds it under the lease
     * `leaseUntil` its claim set (`held`); whether it did. The caller undoes its unit of work when not.
     */
    complete: (scope: TenantScope, id: string, now: number, leaseUntil: number | null) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .update(m)
              .set({ status: 'completed', completedAt: now, error: null, leaseUntil: null })
              .where(and(eq(m.apiKeyId, scope.apiKeyId), held(id, leaseUntil))),
          ) > 0,
      ),

    /**
     * The queue of every key's jobs (services/jobs.ts). Takes the oldest job waiting (pending, or abandoned by an
     * instance whose lease ran out), marking it in_progress under a lease until `leaseUntil`, and counting this
     * attempt; jobs abandoned `maxAttempts` times are failed first. Jobs of one createdAt go by id (code point order).
     */
    claim: (now: number, leaseUntil: number, maxAttempts: number) =>
      engine.write(async (db) => {
        await recover(db, maxAttempts, now, now);
        const oldest = db.select({ id: m.id }).from(m).where(eq(m.status, 'pending')).orderBy(asc(m.createdAt), asc(m.id)).limit(1);
        // PostgreSQL: FOR UPDATE SKIP LOCKED, so that instances taking at the same moment skip the row another is
        // taking and each job goes to one of them (at READ COMMITTED, without it, two would read the same oldest id).
        // SQLite runs one writer at a time and has no such clause (nor drizzle's SQLite builder a `for`).
        const next =
          engine.kind === 'postgres'
            ? (oldest as unknown as { for(strength: 'update', config: { skipLocked: true }): typeof oldest }).for('update', { skipLocked: true })
            : oldest;
        const [taken] = await db
          .update(m)
          .set({ status: 'in_progress', startedAt: now, attempts: sql`${m.attempts} + 1`, leaseUntil })
          .where(inArray(m.id, next))
          .returning();
        return taken;
      }),

    /** Fails the job if its holder still holds it (`held`); whether it did. */
    markFailed: (id: string, message: string, now: number, leaseUntil: number | null) =>
      engine.write(
        async (db) =>
          engine.changed(await db.update(m).set({ status: 'failed', error: message, completedAt: now, leaseUntil: null }).where(held(id, leaseUntil))) > 0,
      ),

    /** Jobs abandoned (see `abandoned`): failed once interrupted `maxAttempts` times, else pending again. */
    recover: (maxAttempts: number, now: number, heldBefore: number) => engine.write((db) => recover(db, maxAttempts, now, heldBefore)),
  };
}

export type DocumentMigrationsRepo = ReturnType<typeof documentMigrationsRepo>;
