// Document migrations: the jobs that move a document's data to a new id (services/migrations.ts), and the queue
// the job runner takes them from. The queue's methods span every key: the runner works for all of them.
import { and, asc, eq, gte, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { documentMigrations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type MigrationRow = typeof documentMigrations.$inferSelect;

/** Jobs left in_progress whose holder is gone: a crash (at start, every one: `heldBefore` Infinity) or an expired lease. */
const abandoned = (heldBefore: number) =>
  and(eq(documentMigrations.status, 'in_progress'), or(isNull(documentMigrations.leaseUntil), lt(documentMigrations.leaseUntil, heldBefore)));

/**
 * The job as its holder read it: lease_until still the value its claim set. A lease that ran out was put back
 * (lease_until cleared) or taken over (a new lease_until), and a job completed or failed has none: the old holder's
 * outcome must not apply then (a cluster's fence).
 */
const held = (id: string, leaseUntil: number | null) =>
  and(eq(documentMigrations.id, id), leaseUntil === null ? isNull(documentMigrations.leaseUntil) : eq(documentMigrations.leaseUntil, leaseUntil));

const queue = {
  /**
   * Takes the oldest job waiting (pending, or abandoned by an instance whose lease ran out), marking it in_progress
   * under a lease until `leaseUntil`, and counting this attempt; jobs abandoned `maxAttempts` times are failed first.
   */
  claim(db: Db, now: number, leaseUntil: number, maxAttempts: number): MigrationRow | undefined {
    queue.recover(db, maxAttempts, now, now);
    const job = db
      .select()
      .from(documentMigrations)
      .where(eq(documentMigrations.status, 'pending'))
      .orderBy(asc(documentMigrations.createdAt), asc(documentMigrations.id))
      .limit(1)
      .get();
    if (!job) return undefined;
    const taken = { status: 'in_progress' as const, startedAt: now, attempts: job.attempts + 1, leaseUntil };
    db.update(documentMigrations).set(taken).where(eq(documentMigrations.id, job.id)).run();
    return { ...job, ...taken };
  },
  /** Fails the job if its holder still holds it (`held`); whether it did. */
  markFailed: (db: Db, id: string, message: string, now: number, leaseUntil: number | null) =>
    db.update(documentMigrations).set({ status: 'failed', error: message, completedAt: now, leaseUntil: null }).where(held(id, leaseUntil)).run().changes > 0,
  /** Jobs abandoned (see `abandoned`): failed once interrupted `maxAttempts` times, else pending again. */
  recover(db: Db, maxAttempts: number, now: number, heldBefore: number) {
    db.update(documentMigrations)
      .set({ status: 'failed', error: `interrupted ${maxAttempts} times; not retried`, completedAt: now, leaseUntil: null })
      .where(and(abandoned(heldBefore), gte(documentMigrations.attempts, maxAttempts)))
      .run();
    db.update(documentMigrations)
      .set({ status: 'pending', leaseUntil: null })
      .where(and(abandoned(heldBefore), lt(documentMigrations.attempts, maxAttempts)))
      .run();
  },
};

/** The key's document migrations, and the queue of all keys' pending ones. */
export function documentMigrationsRepo(engine: SqliteEngine) {
  return {
    insert: (scope: TenantScope, row: Omit<MigrationRow, 'apiKeyId'>) =>
      engine.write((db) => {
        db.insert(documentMigrations)
          .values({ ...row, apiKeyId: scope.apiKeyId })
          .run();
      }),

    find: (scope: TenantScope, organizationId: string, id: string) =>
      engine.read((db) =>
        db
          .select()
          .from(documentMigrations)
          .where(and(eq(documentMigrations.id, id), eq(documentMigrations.apiKeyId, scope.apiKeyId), eq(documentMigrations.organizationId, organizationId)))
          .get(),
      ),

    /**
     * Marks it completed (in the unit of work that moved the document), if its holder still holds it under the lease
     * `leaseUntil` its claim set (`held`); whether it did. The caller undoes its unit of work when not.
     */
    complete: (scope: TenantScope, id: string, now: number, leaseUntil: number | null) =>
      engine.write(
        (db) =>
          db
            .update(documentMigrations)
            .set({ status: 'completed', completedAt: now, error: null, leaseUntil: null })
            .where(and(eq(documentMigrations.apiKeyId, scope.apiKeyId), held(id, leaseUntil)))
            .run().changes > 0,
      ),

    /** The queue of every key's jobs (services/jobs.ts): see `queue`. */
    claim: (now: number, leaseUntil: number, maxAttempts: number) => engine.write((db) => queue.claim(db, now, leaseUntil, maxAttempts)),
    markFailed: (id: string, message: string, now: number, leaseUntil: number | null) =>
      engine.write((db) => queue.markFailed(db, id, message, now, leaseUntil)),
    recover: (maxAttempts: number, now: number, heldBefore: number) => engine.write((db) => queue.recover(db, maxAttempts, now, heldBefore)),
  };
}

export type DocumentMigrationsRepo = ReturnType<typeof documentMigrationsRepo>;
