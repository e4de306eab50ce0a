// Document migrations: the jobs that move a document's data to a new id (services/migrations.ts), and the queue
// the job runner takes them from. The queue's methods span every key: the runner works for all of them.
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { documentMigrations } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type MigrationRow = typeof documentMigrations.$inferSelect;

const queue = {
  next: (db: Db): MigrationRow | undefined =>
    db
      .select()
      .from(documentMigrations)
      .where(eq(documentMigrations.status, 'pending'))
      .orderBy(asc(documentMigrations.createdAt), asc(documentMigrations.id))
      .limit(1)
      .get(),
  markStarted: (db: Db, job: Pick<MigrationRow, 'id' | 'attempts'>, now: number) =>
    void db
      .update(documentMigrations)
      .set({ status: 'in_progress', startedAt: now, attempts: job.attempts + 1 })
      .where(eq(documentMigrations.id, job.id))
      .run(),
  markFailed: (db: Db, id: string, message: string, now: number) =>
    void db.update(documentMigrations).set({ status: 'failed', error: message, completedAt: now }).where(eq(documentMigrations.id, id)).run(),
  /** Jobs left in_progress by a crash: failed once interrupted `maxAttempts` times, else pending again. */
  recover(db: Db, maxAttempts: number, now: number) {
    db.update(documentMigrations)
      .set({ status: 'failed', error: `interrupted ${maxAttempts} times; not retried`, completedAt: now })
      .where(and(eq(documentMigrations.status, 'in_progress'), gte(documentMigrations.attempts, maxAttempts)))
      .run();
    db.update(documentMigrations)
      .set({ status: 'pending' })
      .where(and(eq(documentMigrations.status, 'in_progress'), lt(documentMigrations.attempts, maxAttempts)))
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

    /** Marks it completed (in the unit of work that moved the document). */
    complete: (scope: TenantScope, id: string, now: number) =>
      engine.write((db) => {
        db.update(documentMigrations)
          .set({ status: 'completed', completedAt: now, error: null })
          .where(and(eq(documentMigrations.apiKeyId, scope.apiKeyId), eq(documentMigrations.id, id)))
          .run();
      }),

    /** The oldest pending job of any key. */
    next: () => engine.read((db) => queue.next(db)),
    markStarted: (job: Pick<MigrationRow, 'id' | 'attempts'>, now: number) => engine.write((db) => queue.markStarted(db, job, now)),
    markFailed: (id: string, message: string, now: number) => engine.write((db) => queue.markFailed(db, id, message, now)),
    recover: (maxAttempts: number, now: number) => engine.write((db) => queue.recover(db, maxAttempts, now)),
  };
}

export type DocumentMigrationsRepo = ReturnType<typeof documentMigrationsRepo>;
