// The key's reactions on PostgreSQL: the same repository as ../../repos/reactions.ts (its type is the contract;
// test/pg/reactions.test.ts runs both on the same calls and compares), but for `list`, left out: SQLite orders a
// thread's reactions by createdAt and then by rowid (the order they were inserted in), and the table has no column
// holding that order, which PostgreSQL (no rowid; ctid is not insertion order) would need to answer ties alike.
import { and, eq } from 'drizzle-orm';
import type { ReactionRow, ReactionsRepo } from '../../repos/reactions.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { pgTableFor } from '../schema.ts';

const { table: reactions, c } = pgTableFor('reactions');
const { table: comments, c: cm } = pgTableFor('comments');

const own = (scope: TenantScope, organizationId: string, id: string) => and(eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, organizationId), eq(c.id, id));

/** The SQLite repository's methods but `list` (see above). */
export type ReactionsRepoPg = Omit<ReactionsRepo, 'list'>;

export function reactionsRepoPg(engine: PgEngine): ReactionsRepoPg {
  return {
    lookup: (scope, key) =>
      engine.read(async (db) => {
        const { organizationId, annotationId, commentId } = key;
        // one statement: the comment, and the user's reaction with this icon on it if any
        const rows = (await db
          .select({ comment: cm.id, reaction: c })
          .from(comments)
          .leftJoin(
            reactions,
            and(
              eq(c.apiKeyId, cm.apiKeyId),
              eq(c.organizationId, cm.organizationId),
              eq(c.annotationId, cm.annotationId),
              eq(c.commentId, cm.id),
              eq(c.fromUserId, key.fromUserId),
              eq(c.icon, key.icon),
            ),
          )
          .where(and(eq(cm.apiKeyId, scope.apiKeyId), eq(cm.organizationId, organizationId), eq(cm.annotationId, annotationId), eq(cm.id, commentId)))
          .limit(1)) as Array<{ comment: number; reaction: ReactionRow | null }>;
        const found = rows[0];
        if (!found) return { commentExists: false, existing: undefined };
        return { commentExists: true, existing: found.reaction ?? undefined };
      }),

    insert: (scope, row) => engine.write(async (db) => void (await db.insert(reactions).values({ ...row, apiKeyId: scope.apiKeyId } as never))),

    find: (scope, organizationId, id) =>
      engine.read(
        async (db) =>
          (
            await db
              .select(c)
              .from(reactions)
              .where(own(scope, organizationId, id))
              .limit(1)
          )[0] as ReactionRow | undefined,
      ),

    delete: (scope, organizationId, id) => engine.write(async (db) => ((await db.delete(reactions).where(own(scope, organizationId, id))).rowCount ?? 0) > 0),
  };
}
