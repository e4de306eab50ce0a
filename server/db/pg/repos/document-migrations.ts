// Document migrations on PostgreSQL: the same repository as ../../repos/document-migrations.ts (its type is the
// contract, test/pg/document-migrations.test.ts runs both on the same calls and compares).
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import type { DocumentMigrationsRepo, MigrationRow } from '../../repos/document-migrations.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: documentMigrations, c } = pgTableFor('documentMigrations');

export function documentMigrationsRepoPg(engine: PgEngine): DocumentMigrationsRepo {
  return {
    insert: (scope, row) =>
      engine.write(async (db) => {
        await db.insert(documentMigrations).values({ ...row, apiKeyId: scope.apiKeyId } as never);
      }),

    find: (scope, organizationId, id) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(documentMigrations)
              .where(and(eq(c.id, id), eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, organizationId)))
              .limit(1)
          )[0] as MigrationRow | undefined,
      ),

    complete: (scope, id, now) =>
      engine.write(async (db) => {
        await db
          .update(documentMigrations)
          .set({ status: 'completed', completedAt: now, error: null } as never)
          .where(and(eq(c.apiKeyId, scope.apiKeyId), eq(c.id, id)));
      }),

    // jobs of one createdAt: SQLite answers the first inserted (rowid order in its (status, created_at) index),
    // PostgreSQL has no insertion order to read, so the tie goes to the lowest id (code point order)
    next: () =>
      engine.read(
        async (db) =>
          (await db.select().from(documentMigrations).where(eq(c.status, 'pending')).orderBy(asc(c.createdAt), asc(c.id)).limit(1))[0] as
            | MigrationRow
            | undefined,
      ),

    markStarted: (job, now) =>
      engine.write(async (db) => {
        await db
          .update(documentMigrations)
          .set({ status: 'in_progress', startedAt: now, attempts: job.attempts + 1 } as never)
          .where(eq(c.id, job.id));
        return undefined;
      }),

    markFailed: (id, message, now) =>
      engine.write(async (db) => {
        await db
          .update(documentMigrations)
          .set({ status: 'failed', error: message, completedAt: now } as never)
          .where(eq(c.id, id));
        return undefined;
      }),

    // both statements in one unit of work, as on SQLite
    recover: (maxAttempts, now) =>
      engine.write(async (db) => {
        await db
          .update(documentMigrations)
          .set({ status: 'failed', error: `interrupted ${maxAttempts} times; not retried`, completedAt: now } as never)
          .where(and(eq(c.status, 'in_progress'), gte(c.attempts, maxAttempts)));
        await db
          .update(documentMigrations)
          .set({ status: 'pending' } as never)
          .where(and(eq(c.status, 'in_progress'), lt(c.attempts, maxAttempts)));
      }),
  };
}
