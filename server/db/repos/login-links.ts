// One-time sign-in links mailed to a workspace owner (/v2/workspace/email/send-login-link): their digests, while
// they can be used. No tenant scope: a link belongs to an e-mail address, before any credentials.
import { and, eq, isNull, lt } from 'drizzle-orm';
import { loginLinks } from '../schema.ts';
import type { SqliteEngine } from '../storage.ts';

export type LoginLinkRow = typeof loginLinks.$inferSelect;

export function loginLinksRepo(engine: SqliteEngine) {
  return {
    /** Links past their hour can never be opened again: cleared away (a few rows at most). */
    deleteExpired: (now: number) => engine.write((db) => void db.delete(loginLinks).where(lt(loginLinks.expiresAt, now)).run()),

    insert: (row: LoginLinkRow) => engine.write((db) => void db.insert(loginLinks).values(row).run()),

    /** The unused link of a token digest (expired or not: the service decides). */
    unused: (tokenDigest: string) =>
      engine.read((db) =>
        db
          .select()
          .from(loginLinks)
          .where(and(eq(loginLinks.tokenDigest, tokenDigest), isNull(loginLinks.usedAt)))
          .get(),
      ),

    markUsed: (id: string, now: number) => engine.write((db) => void db.update(loginLinks).set({ usedAt: now }).where(eq(loginLinks.id, id)).run()),
  };
}
