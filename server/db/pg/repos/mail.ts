// The mail outbox on PostgreSQL: the same repository as ../../repos/mail.ts (its type is the contract,
// test/pg/mail.test.ts runs both on the same calls and compares).
import { and, asc, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { MailRow, mailRepo } from '../../repos/mail.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

export type MailRepo = ReturnType<typeof mailRepo>;

const { table: mailOutbox, c } = pgTableFor('mailOutbox');
const { table: loginLinks, c: l } = pgTableFor('loginLinks');

/** As SQLite's: mail queued for relay with attempts left. */
const waiting = (maxAttempts: number) => and(eq(c.status, 'queued'), lt(c.attempts, maxAttempts));

export function mailRepoPg(engine: PgEngine): MailRepo {
  return {
    insert: (row) =>
      engine.write(async (db) => {
        await db.insert(mailOutbox).values(row as never);
        return undefined;
      }),

    // As SQLite's, skipping mail another instance is taking at the same moment (FOR UPDATE SKIP LOCKED). SQLite
    // answers mails of one createdAt in id order (it reads them from the mail_outbox_created index on
    // (created_at, id)); PostgreSQL promises no order among ties, so id is named
    claimQueued: (maxAttempts, now, leaseUntil) =>
      engine.write(async (db) => {
        const next = db
          .select({ id: c.id })
          .from(mailOutbox)
          .where(and(waiting(maxAttempts), or(isNull(c.leaseUntil), lt(c.leaseUntil, now))))
          .orderBy(asc(c.createdAt), asc(c.id))
          .limit(1)
          .for('update', { skipLocked: true });
        const [taken] = await db
          .update(mailOutbox)
          .set({ leaseUntil } as never)
          .where(inArray(c.id, next))
          .returning();
        return taken as MailRow | undefined;
      }),

    releaseQueued: (maxAttempts, heldBefore) =>
      engine.write(async (db) => {
        await db
          .update(mailOutbox)
          .set({ leaseUntil: null } as never)
          .where(and(waiting(maxAttempts), lt(c.leaseUntil, heldBefore)));
        return undefined;
      }),

    loginLink: (id) =>
      engine.read(
        async (db) =>
          (await db.select({ usedAt: l.usedAt, expiresAt: l.expiresAt }).from(loginLinks).where(eq(l.id, id)).limit(1))[0] as
            | { usedAt: number | null; expiresAt: number }
            | undefined,
      ),

    setState: (id, change, leaseUntil) =>
      engine.write(async (db) => {
        const set = await db
          .update(mailOutbox)
          .set({ ...change, leaseUntil: null } as never)
          .where(and(eq(c.id, id), leaseUntil === null ? isNull(c.leaseUntil) : eq(c.leaseUntil, leaseUntil)))
          .returning({ id: c.id });
        return set.length > 0;
      }),

    newest: (limit) => engine.read(async (db) => (await db.select().from(mailOutbox).orderBy(desc(c.createdAt), desc(c.id)).limit(limit)) as MailRow[]),
  };
}
