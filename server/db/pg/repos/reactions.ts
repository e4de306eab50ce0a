// The key's reactions on PostgreSQL: the same repository as ../../repos/reactions.ts (its type is the contract;
// test/pg/reactions.test.ts runs both on the same calls and compares). `list` answers in creation order as SQLite
// does: by createdAt, then in the order the rows were inserted, SQLite's rowid and here the PostgreSQL-only `seq`
// (../schema.ts, INSERTION_ORDER_TABLES).
import { and, asc, eq } from 'drizzle-orm';
import type { ReactionRow, ReactionsRepo } from '../../repos/reactions.ts';
import type { TenantScope } from '../../scope.ts';
import type { PgEngine } from '../engine.ts';
import { insertionOrderOf, pgTableFor } from '../schema.ts';

const { table: reactions, c } = pgTableFor('reactions');
const inserted = insertionOrderOf('reactions');
const { table: comments, c: cm } = pgTableFor('comments');

const own = (scope: TenantScope, organizationId: string, id: string) => and(eq(c.apiKeyId, scope.apiKeyId), eq(c.organizationId, organizationId), eq(c.id, id));

export function reactionsRepoPg(engine: PgEngine): ReactionsRepo {
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

    list: (scope, organizationId, annotationId, commentId) =>
      engine.read(
        async (db) =>
          (await db
            .select(c)
            .from(reactions)
            .where(
              and(
                eq(c.apiKeyId, scope.apiKeyId),
                eq(c.organizationId, organizationId),
                eq(c.annotationId, annotationId),
                commentId === undefined ? undefined : eq(c.commentId, commentId),
              ),
            )
            .orderBy(asc(c.createdAt), asc(inserted))) as ReactionRow[],
      ),

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
