// One-time sign-in links mailed to a workspace owner (/v2/workspace/email/send-login-link): their digests, while
// they can be used. No tenant scope: a link belongs to an e-mail address, before any credentials. Written once for
// both engines (engine.ts; test/pg/login-links.test.ts runs it on both and compares every answer).
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import type { loginLinks } from '../schema.ts';

export type LoginLinkRow = typeof loginLinks.$inferSelect;

export function loginLinksRepo(engine: Engine) {
  const { loginLinks: l } = engine.t;
  return {
    /** Links past their hour can never be opened again: cleared away (a few rows at most). */
    deleteExpired: (now: number) => engine.write(async (db) => void (await db.delete(l).where(lt(l.expiresAt, now)))),

    insert: (row: LoginLinkRow) => engine.write(async (db) => void (await db.insert(l).values(row))),

    /** The unused link of a token digest (expired or not: the service decides). */
    unused: (tokenDigest: string) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(l)
              .where(and(eq(l.tokenDigest, tokenDigest), isNull(l.usedAt)))
              .limit(1)
          )[0],
      ),

    markUsed: (id: string, now: number) => engine.write(async (db) => void (await db.update(l).set({ usedAt: now }).where(eq(l.id, id)))),
  };
}

export type LoginLinksRepo = ReturnType<typeof loginLinksRepo>;
