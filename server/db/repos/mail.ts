import { and, asc, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { loginLinks, mailOutbox, type MailStatus } from '../schema.ts';
import type { SqliteEngine } from '../storage.ts';

export type MailRow = typeof mailOutbox.$inferSelect;
export type { MailStatus };

/** A mail as written: encrypted body, relay state. */
export type NewMail = Omit<MailRow, 'attempts' | 'lastError' | 'sentAt'>;

const insertIn = (db: Db, row: NewMail) => void db.insert(mailOutbox).values(row).run();

/**
 * The outbox of mail Hearth writes (login links, notification e-mails): the server's, not a tenant's alone (a login
 * link belongs to a workspace, a notification mail to a key), so the mailer reads it whole and the admin views
 * filter it by workspace.
 */
export function mailRepo(engine: SqliteEngine) {
  return {
    /** Keeps a mail, in the caller's unit of work. */
    insert: (row: NewMail) => engine.write((db) => insertIn(db, row)),

    /** Mail waiting for relay, oldest first. */
    queued: (maxAttempts: number, limit: number) =>
      engine.read((db) =>
        db
          .select()
          .from(mailOutbox)
          .where(and(eq(mailOutbox.status, 'queued'), lt(mailOutbox.attempts, maxAttempts)))
          .orderBy(asc(mailOutbox.createdAt))
          .limit(limit)
          .all(),
      ),

    /** The login link a mail carries, for whether it may still go out. */
    loginLink: (id: string) =>
      engine.read((db) => db.select({ usedAt: loginLinks.usedAt, expiresAt: loginLinks.expiresAt }).from(loginLinks).where(eq(loginLinks.id, id)).get()),

    /** Records a relay's outcome. */
    setState: (id: string, change: Partial<Pick<MailRow, 'status' | 'attempts' | 'lastError' | 'sentAt'>>) =>
      engine.write((db) => void db.update(mailOutbox).set(change).where(eq(mailOutbox.id, id)).run()),

    /** The newest mail, newest first. */
    newest: (limit: number) => engine.read((db) => db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id)).limit(limit).all()),
  };
}
