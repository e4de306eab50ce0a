// Reactions on comments: one per user, icon and comment. Threads read them with their comments (comments.ts).
import { and, asc, eq, sql } from 'drizzle-orm';
import { compiledRows, rowInserter } from '../prepared.ts';
import { comments, reactions } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type ReactionRow = typeof reactions.$inferSelect;

const insertReaction = rowInserter(reactions);

/** The reactions of an annotation, or of one of its comments, in creation order. */
const reactionsOf = compiledRows(reactions, (db, shape: 'annotation' | 'comment', columns) => {
  const p = sql.placeholder;
  const conditions = [eq(reactions.apiKeyId, p('apiKeyId')), eq(reactions.organizationId, p('organizationId')), eq(reactions.annotationId, p('annotationId'))];
  if (shape === 'comment') conditions.push(eq(reactions.commentId, p('commentId')));
  return db
    .select(columns)
    .from(reactions)
    .where(and(...conditions))
    .orderBy(asc(reactions.createdAt), sql`rowid`);
});

const own = (scope: TenantScope, organizationId: string, id: string) =>
  and(eq(reactions.apiKeyId, scope.apiKeyId), eq(reactions.organizationId, organizationId), eq(reactions.id, id));

/** The key's reactions. */
export function reactionsRepo(engine: SqliteEngine) {
  return {
    /** Whether the comment exists, and the user's reaction with this icon on it, if any. */
    lookup: (scope: TenantScope, key: { organizationId: string; annotationId: string; commentId: number; fromUserId: string; icon: string }) =>
      engine.read((db) => {
        const { organizationId, annotationId, commentId } = key;
        const comment = db
          .select({ id: comments.id })
          .from(comments)
          .where(
            and(
              eq(comments.apiKeyId, scope.apiKeyId),
              eq(comments.organizationId, organizationId),
              eq(comments.annotationId, annotationId),
              eq(comments.id, commentId),
            ),
          )
          .get();
        if (!comment) return { commentExists: false, existing: undefined };
        const existing = db
          .select()
          .from(reactions)
          .where(
            and(
              eq(reactions.apiKeyId, scope.apiKeyId),
              eq(reactions.organizationId, organizationId),
              eq(reactions.annotationId, annotationId),
              eq(reactions.commentId, commentId),
              eq(reactions.fromUserId, key.fromUserId),
              eq(reactions.icon, key.icon),
            ),
          )
          .get();
        return { commentExists: true, existing };
      }),

    insert: (scope: TenantScope, row: Omit<ReactionRow, 'apiKeyId'>) => engine.write((db) => void insertReaction(db, { ...row, apiKeyId: scope.apiKeyId })),

    /** The reactions of an annotation, or of one of its comments, in creation order. */
    list: (scope: TenantScope, organizationId: string, annotationId: string, commentId?: number) =>
      engine.read((db) =>
        reactionsOf(db, commentId === undefined ? 'annotation' : 'comment', { apiKeyId: scope.apiKeyId, organizationId, annotationId, commentId }),
      ),

    find: (scope: TenantScope, organizationId: string, id: string) =>
      engine.read((db) =>
        db
          .select()
          .from(reactions)
          .where(own(scope, organizationId, id))
          .get(),
      ),

    delete: (scope: TenantScope, organizationId: string, id: string) =>
      engine.write(
        (db) =>
          db
            .delete(reactions)
            .where(own(scope, organizationId, id))
            .run().changes > 0,
      ),
  };
}

export type ReactionsRepo = ReturnType<typeof reactionsRepo>;
