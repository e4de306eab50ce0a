// Document migrations on PostgreSQL: the same repository as ../../repos/document-migrations.ts (its type is the
// contract, test/pg/document-migrations.test.ts runs both on the same calls and compares).
import { and, asc, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DocumentMigrationsRepo, MigrationRow } from '../../repos/document-migrations.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: documentMigrations, c } = pgTableFor('documentMigrations');

/** As SQLite's: jobs in_progress whose holder is gone (a crash, or an expired lease). */
const abandoned = (heldBefore: number) => and(eq(c.status, 'in_progress'), or(isNull(c.leaseUntil), lt(c.leaseUntil, heldBefore)));

/** As SQLite's: the job as its holder read it, lease_until still the value its claim set (a cluster's fence). */
const held = (id: string, leaseUntil: number | null) => and(eq(c.id, id), leaseUntil === null ? isNull(c.leaseUntil) : eq(c.leaseUntil, leaseUntil));

/** As SQLite's recover, both statements in the caller's unit of work. */
async function recover(db: PgDb, maxAttempts: number, now: number, heldBefore: number) {
  await db
    .update(documentMigrations)
    .set({ status: 'failed', error: `interrupted ${maxAttempts} times; not retried`, completedAt: now, leaseUntil: null } as never)
    .where(and(abandoned(heldBefore), gte(c.attempts, maxAttempts)));
  await db
    .update(documentMigrations)
    .set({ status: 'pending', leaseUntil: null } as never)
    .where(and(abandoned(heldBefore), lt(c.attempts, maxAttempts)));
}

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

    complete: (scope, id, now, leaseUntil) =>
      engine.write(async (db) => {
        const done = await db
          .update(documentMigrations)
          .set({ status: 'completed', completedAt: now, error: null, leaseUntil: null } as never)
          .where(and(eq(c.apiKeyId, scope.apiKeyId), held(id, leaseUntil)))
          .returning({ id: c.id });
        return done.length > 0;
      }),

    // As SQLite's: abandoned jobs recovered, then the oldest pending one taken, skipping rows another instance is
    // taking at the same moment (FOR UPDATE SKIP LOCKED), so that each job goes to one instance. Jobs of one
    // createdAt: SQLite answers the first inserted (rowid order in its (status, created_at) index), PostgreSQL has no
    // insertion order to read, so the tie goes to the lowest id (code point order).
    claim: (now, leaseUntil, maxAttempts) =>
      engine.write(async (db) => {
        await recover(db, maxAttempts, now, now);
        const next = db
          .select({ id: c.id })
          .from(documentMigrations)
          .where(eq(c.status, 'pending'))
          .orderBy(asc(c.createdAt), asc(c.id))
          .limit(1)
          .for('update', { skipLocked: true });
        const [taken] = await db
          .update(documentMigrations)
          .set({ status: 'in_progress', startedAt: now, attempts: sql`${c.attempts} + 1`, leaseUntil } as never)
          .where(inArray(c.id, next))
          .returning();
        return taken as MigrationRow | undefined;
      }),

    markFailed: (id, message, now, leaseUntil) =>
      engine.write(async (db) => {
        const failed = await db
          .update(documentMigrations)
          .set({ status: 'failed', error: message, completedAt: now, leaseUntil: null } as never)
          .where(held(id, leaseUntil))
          .returning({ id: c.id });
        return failed.length > 0;
      }),

    recover: (maxAttempts, now, heldBefore) => engine.write((db) => recover(db, maxAttempts, now, heldBefore)),
  };
}
