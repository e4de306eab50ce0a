// One-time sign-in links on PostgreSQL: the same repository as ../../repos/login-links.ts (its type is the contract,
// test/pg/login-links.test.ts runs both on the same calls and compares).
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { LoginLinkRow, loginLinksRepo } from '../../repos/login-links.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

export type LoginLinksRepo = ReturnType<typeof loginLinksRepo>;

const { table: loginLinks, c } = pgTableFor('loginLinks');

export function loginLinksRepoPg(engine: PgEngine): LoginLinksRepo {
  return {
    deleteExpired: (now) =>
      engine.write(async (db) => {
        await db.delete(loginLinks).where(lt(c.expiresAt, now));
        return undefined;
      }),

    insert: (row) =>
      engine.write(async (db) => {
        await db.insert(loginLinks).values(row as never);
        return undefined;
      }),

    unused: (tokenDigest) =>
      engine.read(
        async (db) =>
          (
            await db
              .select()
              .from(loginLinks)
              .where(and(eq(c.tokenDigest, tokenDigest), isNull(c.usedAt)))
              .limit(1)
          )[0] as LoginLinkRow | undefined,
      ),

    markUsed: (id, now) =>
      engine.write(async (db) => {
        await db
          .update(loginLinks)
          .set({ usedAt: now } as never)
          .where(eq(c.id, id));
        return undefined;
      }),
  };
}
