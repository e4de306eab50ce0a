// The mail outbox on PostgreSQL: the same repository as ../../repos/mail.ts (its type is the contract,
// test/pg/mail.test.ts runs both on the same calls and compares).
import { and, asc, desc, eq, lt } from 'drizzle-orm';
import type { MailRow, mailRepo } from '../../repos/mail.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

export type MailRepo = ReturnType<typeof mailRepo>;

const { table: mailOutbox, c } = pgTableFor('mailOutbox');
const { table: loginLinks, c: l } = pgTableFor('loginLinks');

export function mailRepoPg(engine: PgEngine): MailRepo {
  return {
    insert: (row) =>
      engine.write(async (db) => {
        await db.insert(mailOutbox).values(row as never);
        return undefined;
      }),

    // SQLite answers mails of one createdAt in id order (it reads them from the mail_outbox_created index on
    // (created_at, id)); PostgreSQL promises no order among ties, so id is named
    queued: (maxAttempts, limit) =>
      engine.read(
        async (db) =>
          (await db
            .select()
            .from(mailOutbox)
            .where(and(eq(c.status, 'queued'), lt(c.attempts, maxAttempts)))
            .orderBy(asc(c.createdAt), asc(c.id))
            .limit(limit)) as MailRow[],
      ),

    loginLink: (id) =>
      engine.read(
        async (db) =>
          (await db.select({ usedAt: l.usedAt, expiresAt: l.expiresAt }).from(loginLinks).where(eq(l.id, id)).limit(1))[0] as
            | { usedAt: number | null; expiresAt: number }
            | undefined,
      ),

    setState: (id, change) =>
      engine.write(async (db) => {
        await db
          .update(mailOutbox)
          .set(change as never)
          .where(eq(c.id, id));
        return undefined;
      }),

    newest: (limit) => engine.read(async (db) => (await db.select().from(mailOutbox).orderBy(desc(c.createdAt), desc(c.id)).limit(limit)) as MailRow[]),
  };
}
