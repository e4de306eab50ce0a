// Reactions on comments: one per user, icon and comment. Threads read them with their comments (comments.ts).
// Written once for both engines (engine.ts; test/pg/reactions.test.ts runs it on both and compares every answer).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Engine } from '../engine.ts';
import { ConcurrentChange } from '../pg/engine.ts';
import type { reactions } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

export type ReactionRow = typeof reactions.$inferSelect;

const P = sql.placeholder;

/** The key's reactions. */
export function reactionsRepo(engine: Engine) {
  const { reactions: r, comments: cm } = engine.t;
  // a whole row: PostgreSQL's reactions carry their insertion order (`seq`) beside the source's columns
  const row = engine.columns(r);
  // Creation order is createdAt, then the order the rows were inserted in (engine.insertionOrder: rowid or seq)
  const inserted = engine.insertionOrder('reactions');
  const inOrganization = [eq(r.apiKeyId, P('apiKeyId')), eq(r.organizationId, P('organizationId'))];

  // one statement, so one instant on both engines: the comment, and the user's reaction with this icon on it if any
  const lookup = engine.prepare('reactions.lookup', (db) =>
    db
      .select({ comment: cm.id, reaction: row })
      .from(cm)
      .leftJoin(
        r,
        and(
          eq(r.apiKeyId, cm.apiKeyId),
          eq(r.organizationId, cm.organizationId),
          eq(r.annotationId, cm.annotationId),
          eq(r.commentId, cm.id),
          eq(r.fromUserId, P('fromUserId')),
          eq(r.icon, P('icon')),
        ),
      )
      .where(and(eq(cm.apiKeyId, P('apiKeyId')), eq(cm.organizationId, P('organizationId')), eq(cm.annotationId, P('annotationId')), eq(cm.id, P('commentId'))))
      .limit(1),
  );
  const insert = engine.prepare('reactions.insert', (db) =>
    db
      .insert(r)
      .values({
        apiKeyId: P('apiKeyId'),
        organizationId: P('organizationId'),
        id: P('id'),
        annotationId: P('annotationId'),
        commentId: P('commentId'),
        icon: P('icon'),
        fromUser: P('fromUser'),
        fromUserId: P('fromUserId'),
        createdAt: P('createdAt'),
      })
      // reactions_once: another request's reaction of this user with this icon on the comment, committed first
      .onConflictDoNothing(),
  );
  /** The reactions of an annotation, or of one of its comments, in creation order. */
  const ofAnnotation = engine.prepare('reactions.ofAnnotation', (db) =>
    db
      .select(row)
      .from(r)
      .where(and(...inOrganization, eq(r.annotationId, P('annotationId'))))
      .orderBy(asc(r.createdAt), inserted),
  );
  const ofComment = engine.prepare('reactions.ofComment', (db) =>
    db
      .select(row)
      .from(r)
      .where(and(...inOrganization, eq(r.annotationId, P('annotationId')), eq(r.commentId, P('commentId'))))
      .orderBy(asc(r.createdAt), inserted),
  );
  const byId = engine.prepare('reactions.byId', (db) =>
    db
      .select(row)
      .from(r)
      .where(and(...inOrganization, eq(r.id, P('id')))),
  );
  const own = (scope: TenantScope, organizationId: string, id: string) =>
    and(eq(r.apiKeyId, scope.apiKeyId), eq(r.organizationId, organizationId), eq(r.id, id));

  return {
    /** Whether the comment exists, and the user's reaction with this icon on it, if any. */
    lookup: (scope: TenantScope, key: { organizationId: string; annotationId: string; commentId: number; fromUserId: string; icon: string }) =>
      engine.read(async (db) => {
        const found = await lookup.one(db, { apiKeyId: scope.apiKeyId, ...key });
        if (!found) return { commentExists: false, existing: undefined };
        return { commentExists: true, existing: found.reaction ?? undefined };
      }),

    /**
     * Inserts the reaction unless the user's reaction with this icon on the comment is there: undefined when it was
     * inserted, else the one there. On PostgreSQL at READ COMMITTED that is another request's, the conflict having
     * waited for its commit; one gone again by the next statement (deleted meanwhile) runs the unit of work again.
     */
    insert: (scope: TenantScope, row: Omit<ReactionRow, 'apiKeyId'>) =>
      engine.write(async (db): Promise<ReactionRow | undefined> => {
        if ((await insert.run(db, { ...row, apiKeyId: scope.apiKeyId })) > 0) return undefined;
        const { organizationId, annotationId, commentId, fromUserId, icon } = row;
        const found = await lookup.one(db, { apiKeyId: scope.apiKeyId, organizationId, annotationId, commentId, fromUserId, icon });
        if (found?.reaction) return found.reaction;
        throw new ConcurrentChange('a reaction that refused this one as a duplicate');
      }),

    /** The reactions of an annotation, or of one of its comments, in creation order. */
    list: (scope: TenantScope, organizationId: string, annotationId: string, commentId?: number) =>
      engine.read((db) =>
        commentId === undefined
          ? ofAnnotation.all(db, { apiKeyId: scope.apiKeyId, organizationId, annotationId })
          : ofComment.all(db, { apiKeyId: scope.apiKeyId, organizationId, annotationId, commentId }),
      ),

    find: (scope: TenantScope, organizationId: string, id: string) => engine.read((db) => byId.one(db, { apiKeyId: scope.apiKeyId, organizationId, id })),

    /**
     * Takes the reactions' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write
     * unit holds the database): on PostgreSQL at READ COMMITTED, a second delete of a reaction waits for the first's
     * commit, then reads it gone.
     */
    lock: (scope: TenantScope, organizationId: string, ids: readonly string[]) =>
      engine.write((db) => engine.lockRows(db, ['reaction', scope.apiKeyId, organizationId], ids)),

    /** Deletes the reaction; whether it was there. */
    delete: (scope: TenantScope, organizationId: string, id: string) =>
      engine.write(async (db) => engine.changed(await db.delete(r).where(own(scope, organizationId, id))) > 0),
  };
}

export type ReactionsRepo = ReturnType<typeof reactionsRepo>;
