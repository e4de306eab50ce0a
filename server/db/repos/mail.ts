import { and, asc, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { loginLinks, mailOutbox, type MailStatus } from '../schema.ts';
import type { SqliteEngine } from '../storage.ts';

export type MailRow = typeof mailOutbox.$inferSelect;
export type { MailStatus };

/** A mail as written: encrypted body, relay state. */
export type NewMail = Omit<MailRow, 'attempts' | 'lastError' | 'sentAt' | 'leaseUntil'>;

const insertIn = (db: Db, row: NewMail) => void db.insert(mailOutbox).values(row).run();

/** Mail queued for relay with attempts left. */
const waiting = (maxAttempts: number) => and(eq(mailOutbox.status, 'queued'), lt(mailOutbox.attempts, maxAttempts));

/**
 * The outbox of mail Hearth writes (login links, notification e-mails): the server's, not a tenant's alone (a login
 * link belongs to a workspace, a notification mail to a key), so the mailer reads it whole and the admin views
 * filter it by workspace.
 */
export function mailRepo(engine: SqliteEngine) {
  return {
    /** Keeps a mail, in the caller's unit of work. */
    insert: (row: NewMail) => engine.write((db) => insertIn(db, row)),

    /**
     * Takes the oldest mail waiting for relay that no relay holds (or whose holder's lease ran out before `now`),
     * holding it until `leaseUntil`: each mail goes to one relay, across instances too. Its outcome (`setState`)
     * ends the hold.
     */
    claimQueued: (maxAttempts: number, now: number, leaseUntil: number) =>
      engine.write((db): MailRow | undefined => {
        const row = db
          .select()
          .from(mailOutbox)
          .where(and(waiting(maxAttempts), or(isNull(mailOutbox.leaseUntil), lt(mailOutbox.leaseUntil, now))))
          .orderBy(asc(mailOutbox.createdAt))
          .limit(1)
          .get();
        if (!row) return undefined;
        db.update(mailOutbox).set({ leaseUntil }).where(eq(mailOutbox.id, row.id)).run();
        return { ...row, leaseUntil };
      }),

    /**
     * Ends the holds on mail waiting for relay held until before `heldBefore`: at the start of the database's only
     * instance every one (what its previous run held); in a cluster those whose lease ran out.
     */
    releaseQueued: (maxAttempts: number, heldBefore: number) =>
      engine.write(
        (db) =>
          void db
            .update(mailOutbox)
            .set({ leaseUntil: null })
            .where(and(waiting(maxAttempts), lt(mailOutbox.leaseUntil, heldBefore)))
            .run(),
      ),

    /** The login link a mail carries, for whether it may still go out. */
    loginLink: (id: string) =>
      engine.read((db) => db.select({ usedAt: loginLinks.usedAt, expiresAt: loginLinks.expiresAt }).from(loginLinks).where(eq(loginLinks.id, id)).get()),

    /**
     * Records a relay's outcome, which ends the relay's hold on it, if the relay still holds it under the lease
     * `leaseUntil` its claim set; whether it did. A hold that ran out and was taken over (or released) is another
     * relay's now: the old relay's outcome must not apply (a cluster's fence).
     */
    setState: (id: string, change: Partial<Pick<MailRow, 'status' | 'attempts' | 'lastError' | 'sentAt'>>, leaseUntil: number | null) =>
      engine.write(
        (db) =>
          db
            .update(mailOutbox)
            .set({ ...change, leaseUntil: null })
            .where(and(eq(mailOutbox.id, id), leaseUntil === null ? isNull(mailOutbox.leaseUntil) : eq(mailOutbox.leaseUntil, leaseUntil)))
            .run().changes > 0,
      ),

    /** The newest mail, newest first. */
    newest: (limit: number) => engine.read((db) => db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id)).limit(limit).all()),
  };
}
