// The mail outbox, written once for both engines (engine.ts; test/pg/mail.test.ts runs it on both and compares every
// answer).
import { and, asc, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import type { mailOutbox, MailStatus } from '../schema.ts';

export type MailRow = typeof mailOutbox.$inferSelect;
export type { MailStatus };

/** A mail as written: encrypted body, relay state. */
export type NewMail = Omit<MailRow, 'attempts' | 'lastError' | 'sentAt' | 'leaseUntil'>;

/**
 * The outbox of mail Hearth writes (login links, notification e-mails): the server's, not a tenant's alone (a login
 * link belongs to a workspace, a notification mail to a key), so the mailer reads it whole and the admin views
 * filter it by workspace.
 */
export function mailRepo(engine: Engine) {
  const { mailOutbox: m, loginLinks: l } = engine.t;
  /** Mail queued for relay with attempts left. */
  const waiting = (maxAttempts: number) => and(eq(m.status, 'queued'), lt(m.attempts, maxAttempts));
  return {
    /** Keeps a mail, in the caller's unit of work. */
    insert: (row: NewMail) => engine.write(async (db) => void (await db.insert(m).values(row))),

    /**
     * Takes the oldest mail waiting for relay that no relay holds (or whose holder's lease ran out before `now`),
     * holding it until `leaseUntil`: each mail goes to one relay, across instances too. Its outcome (`setState`)
     * ends the hold.
     */
    claimQueued: (maxAttempts: number, now: number, leaseUntil: number) =>
      engine.write(async (db): Promise<MailRow | undefined> => {
        // mails of one createdAt by id: SQLite's index (created_at, id) gave that order, PostgreSQL promises none
        const oldest = db
          .select({ id: m.id })
          .from(m)
          .where(and(waiting(maxAttempts), or(isNull(m.leaseUntil), lt(m.leaseUntil, now))))
          .orderBy(asc(m.createdAt), asc(m.id))
          .limit(1);
        // PostgreSQL: instances claim at the same moment under READ COMMITTED, so the pick skips a mail another is
        // taking (FOR UPDATE SKIP LOCKED; 40 concurrent claims over 30 mails take each once, test/pg/mail.test.ts).
        // SQLite runs one writer at a time and has no such clause.
        const next = engine.kind === 'postgres' ? (oldest as unknown as LockableSelect<typeof oldest>).for('update', { skipLocked: true }) : oldest;
        return (await db.update(m).set({ leaseUntil }).where(inArray(m.id, next)).returning())[0];
      }),

    /**
     * Ends the holds on mail waiting for relay held until before `heldBefore`: at the start of the database's only
     * instance every one (what its previous run held); in a cluster those whose lease ran out.
     */
    releaseQueued: (maxAttempts: number, heldBefore: number) =>
      engine.write(
        async (db) =>
          void (await db
            .update(m)
            .set({ leaseUntil: null })
            .where(and(waiting(maxAttempts), lt(m.leaseUntil, heldBefore)))),
      ),

    /** The login link a mail carries, for whether it may still go out. */
    loginLink: (id: string) =>
      engine.read(async (db) => (await db.select({ usedAt: l.usedAt, expiresAt: l.expiresAt }).from(l).where(eq(l.id, id)).limit(1))[0]),

    /**
     * Records a relay's outcome, which ends the relay's hold on it, if the relay still holds it under the lease
     * `leaseUntil` its claim set; whether it did. A hold that ran out and was taken over (or released) is another
     * relay's now: the old relay's outcome must not apply (a cluster's fence).
     */
    setState: (id: string, change: Partial<Pick<MailRow, 'status' | 'attempts' | 'lastError' | 'sentAt'>>, leaseUntil: number | null) =>
      engine.write(
        async (db) =>
          engine.changed(
            await db
              .update(m)
              .set({ ...change, leaseUntil: null })
              .where(and(eq(m.id, id), leaseUntil === null ? isNull(m.leaseUntil) : eq(m.leaseUntil, leaseUntil))),
          ) > 0,
      ),

    /** The newest mail, newest first. */
    newest: (limit: number) => engine.read(async (db) => db.select().from(m).orderBy(desc(m.createdAt), desc(m.id)).limit(limit)),
  };
}

/** A select as PostgreSQL's builder has it at run time: with a row lock clause (the builder is typed as SQLite's). */
type LockableSelect<S> = { for(strength: 'update', config: { skipLocked: boolean }): S };

export type MailRepo = ReturnType<typeof mailRepo>;
