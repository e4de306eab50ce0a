// Comment threads: annotations, their comments, who read them, and (to show a thread) the comments' reactions.
// Reactions are written by their own service (services/reactions.ts); here they are read with a thread and
// rewritten only when users are replaced in it.
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { annotationFilters, annotationsGetInput } from '../../../shared/schemas/comments.ts';
import type { Db } from '../client.ts';
import { keysetAfter } from '../pagination.ts';
import { compiledRows, inJsonList, listValues, placeholderList, preparedFor, rowInserter } from '../prepared.ts';
import { commentAnnotations, commentReads, comments, documents, reactions, type CommentExtra, type StoredUser } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';

export type { CommentExtra, StoredUser };
export type AnnotationRow = typeof commentAnnotations.$inferSelect;
export type CommentRow = typeof comments.$inferSelect;
export type ReactionRow = typeof reactions.$inferSelect;

/** A thread as it is shown: its comments and their reactions, each in creation order. */
export interface ThreadRows {
  comments: CommentRow[];
  reactions: ReactionRow[];
}

/**
 * What selects annotations (get's and update's filters), the order, and for a page the reader. `folderId` null: the
 * documents in no folder (the organization's top).
 */
export type AnnotationSelection = Omit<Pick<z.output<typeof annotationsGetInput>, 'organizationId' | keyof typeof annotationFilters | 'order'>, 'folderId'> & {
  folderId?: string | null | undefined;
  userId?: string | undefined;
};

/** What users/replace changes in one thread, written in one step. */
export interface ThreadRewrite {
  comments: Array<{ id: number; change: Partial<CommentRow> }>;
  /** The thread's reactions as they are to be, all of them (replacing those stored), or undefined to keep them. */
  reactions?: ReactionRow[] | undefined;
  /** The thread's read marks as they are to be, or undefined to keep them. */
  reads?: Map<string, number> | undefined;
  /** The annotation's own change, or undefined when it keeps its row. */
  annotation?: Partial<AnnotationRow> | undefined;
}

const P = sql.placeholder;

const annotationQueries = preparedFor((db) => ({
  byId: db
    .select()
    .from(commentAnnotations)
    .where(
      and(
        eq(commentAnnotations.apiKeyId, P('apiKeyId')),
        eq(commentAnnotations.organizationId, P('organizationId')),
        eq(commentAnnotations.id, P('annotationId')),
      ),
    )
    .prepare(),
  commentTaken: db
    .select({ id: comments.id })
    .from(comments)
    .where(
      and(
        eq(comments.apiKeyId, P('apiKeyId')),
        eq(comments.organizationId, P('organizationId')),
        eq(comments.annotationId, P('annotationId')),
        eq(comments.id, P('id')),
      ),
    )
    .prepare(),
}));

/**
 * A thread's first and last comment, and one comment by id: prepared once per connection (drizzle built each on
 * every comment). First and last are each one step on the index `comments_thread_time`; without it they sorted
 * the whole thread on every reply.
 */
const threadTextQueries = preparedFor((db) => {
  const thread = and(eq(comments.apiKeyId, P('apiKeyId')), eq(comments.organizationId, P('organizationId')), eq(comments.annotationId, P('annotationId')));
  const pick = { id: comments.id, text: comments.text, html: comments.html };
  return {
    first: db.select(pick).from(comments).where(thread).orderBy(asc(comments.createdAt), asc(comments.id)).limit(1).prepare(),
    last: db.select(pick).from(comments).where(thread).orderBy(desc(comments.createdAt), desc(comments.id)).limit(1).prepare(),
    one: db
      .select(pick)
      .from(comments)
      .where(and(thread, eq(comments.id, P('commentId'))))
      .prepare(),
  };
});

// compiled once per connection (prepared.ts): drizzle built each of these on every comment
const insertCommentRow = rowInserter(comments);
const insertAnnotationRow = rowInserter(commentAnnotations);
const upsertRead = rowInserter(commentReads, {
  upsertOn: [commentReads.apiKeyId, commentReads.organizationId, commentReads.annotationId, commentReads.userId],
});

/** The comments of some annotations (and, with `+ids`, only some comment ids), in creation order. */
const commentRows = compiledRows(comments, (db, shape: 'annotations' | 'annotations+ids', columns) => {
  const conditions = [
    eq(comments.apiKeyId, P('apiKeyId')),
    eq(comments.organizationId, P('organizationId')),
    inJsonList(comments.annotationId, 'annotationIds'),
  ];
  if (shape === 'annotations+ids') conditions.push(inJsonList(comments.id, 'commentIds'));
  return db
    .select(columns)
    .from(comments)
    .where(and(...conditions))
    .orderBy(asc(comments.createdAt), sql`rowid`);
});

/** The reactions of some annotations' comments, in creation order. */
const reactionRows = compiledRows(reactions, (db, _shape: 'annotations', columns) =>
  db
    .select(columns)
    .from(reactions)
    .where(and(eq(reactions.apiKeyId, P('apiKeyId')), eq(reactions.organizationId, P('organizationId')), inJsonList(reactions.annotationId, 'annotationIds')))
    .orderBy(asc(reactions.createdAt), sql`rowid`),
);

/** The filters of an annotations page: the order, a cursor, how many document ids, and which other filters. */
type AnnotationShape =
  `${'<' | '>'}${'' | '+after'}:${number}:${'' | '+ids'}${'' | '+locations'}${'' | '+statuses'}${'' | '+authors'}${'' | '+mentions'}${'' | '+viewer'}${'' | '+resolver'}${'' | '+folder' | '+rootfolder'}${'' | '+ca'}${'' | '+cb'}${'' | '+ua'}${'' | '+ub'}`;

/**
 * The annotations page of one filter shape, compiled once. Document ids get one placeholder each (a single one
 * reads the document index in order, as `=` does); the other lists, which no index leads with, are JSON arrays.
 */
const annotationPage = compiledRows(commentAnnotations, (db, shape: AnnotationShape, columns) => {
  const a = commentAnnotations;
  const [head, documentCount, flags] = shape.split(':') as [string, string, string];
  const descending = head.startsWith('<');
  const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, P('apiKeyId')), eq(a.organizationId, P('organizationId'))];
  if (head.includes('+after')) conditions.push(keysetAfter(a.createdAt, a.id, [P('afterCreatedAt'), P('afterId')], descending));
  if (documentCount !== '0') conditions.push(inArray(a.documentId, placeholderList('document', Number(documentCount))));
  if (flags.includes('+ids')) conditions.push(inJsonList(a.id, 'annotationIds'));
  if (flags.includes('+locations')) conditions.push(inJsonList(a.locationId, 'locationIds'));
  if (flags.includes('+statuses')) conditions.push(inJsonList(a.statusId, 'statusIds'));
  // by any author of one of its comments
  const ofAnnotation = sql`${comments.apiKeyId} = ${a.apiKeyId} and ${comments.organizationId} = ${a.organizationId} and ${comments.annotationId} = ${a.id}`;
  if (flags.includes('+authors'))
    conditions.push(sql`exists (select 1 from ${comments} where ${ofAnnotation} and ${inJsonList(comments.fromUserId, 'userIds')})`);
  // mentioning one of the users in one of its comments
  if (flags.includes('+mentions')) {
    conditions.push(
      sql`exists (select 1 from ${comments}, json_each(${comments.mentionedUserIds}) where ${ofAnnotation} and json_each.value in (select value from json_each(${P('mentionedUserIds')})))`,
    );
  }
  if (flags.includes('+viewer')) {
    conditions.push(
      or(
        eq(a.visibility, 'public'),
        eq(a.createdByUserId, P('userId')),
        sql`exists (select 1 from json_each(${a.visibleToUserIds}) where json_each.value = ${P('userId')})`,
      ),
    );
  }
  if (flags.includes('+resolver')) conditions.push(eq(a.resolvedByUserId, P('resolvedBy')));
  // on a document registered in the folder (an annotation's document need not be registered: then in none)
  if (flags.includes('folder')) {
    const d = documents;
    const inFolder = flags.includes('+rootfolder') ? isNull(d.folderId) : eq(d.folderId, P('folderId'));
    conditions.push(
      sql`exists (select 1 from ${d} where ${d.apiKeyId} = ${a.apiKeyId} and ${d.organizationId} = ${a.organizationId} and ${d.id} = ${a.documentId} and ${inFolder})`,
    );
  }
  if (flags.includes('+ca')) conditions.push(gt(a.createdAt, P('createdAfter')));
  if (flags.includes('+cb')) conditions.push(lt(a.createdAt, P('createdBefore')));
  if (flags.includes('+ua')) conditions.push(gt(a.updatedAt, P('updatedAfter')));
  if (flags.includes('+ub')) conditions.push(lt(a.updatedAt, P('updatedBefore')));
  const direction = descending ? desc : asc;
  return db
    .select(columns)
    .from(a)
    .where(and(...conditions))
    .orderBy(direction(a.createdAt), direction(a.id))
    .limit(P('limit'));
});

/** The annotations the selection selects, in `order` of (createdAt, id), after `cursor`, at most `limit`. */
function selectAnnotations(db: Db, apiKeyId: string, input: AnnotationSelection, limit: number, cursor?: readonly unknown[] | null) {
  const documentIds = [...(input.documentId ? [input.documentId] : []), ...(input.documentIds ?? [])];
  const json = (list: readonly string[] | undefined) => (list ? JSON.stringify(list) : undefined);
  const values: Record<string, unknown> = {
    apiKeyId,
    organizationId: input.organizationId,
    afterCreatedAt: cursor?.[0],
    afterId: cursor?.[1],
    annotationIds: json(input.annotationIds),
    locationIds: json(input.locationIds),
    statusIds: json(input.statusIds),
    userIds: json(input.userIds),
    mentionedUserIds: json(input.mentionedUserIds),
    userId: input.userId,
    resolvedBy: input.resolvedBy,
    folderId: input.folderId ?? undefined,
    createdAfter: input.createdAfter,
    createdBefore: input.createdBefore,
    updatedAfter: input.updatedAfter,
    updatedBefore: input.updatedBefore,
    limit,
  };
  listValues(values, 'document', documentIds);
  const has = (value: unknown, flag: string) => (value === undefined ? '' : flag);
  const shape = [
    `${input.order === 'desc' ? '<' : '>'}${cursor ? '+after' : ''}:${documentIds.length}:`,
    has(input.annotationIds, '+ids'),
    has(input.locationIds, '+locations'),
    has(input.statusIds, '+statuses'),
    has(input.userIds, '+authors'),
    has(input.mentionedUserIds, '+mentions'),
    has(input.userId, '+viewer'),
    has(input.resolvedBy, '+resolver'),
    has(input.folderId, input.folderId === null ? '+rootfolder' : '+folder'),
    has(input.createdAfter, '+ca'),
    has(input.createdBefore, '+cb'),
    has(input.updatedAfter, '+ua'),
    has(input.updatedBefore, '+ub'),
  ].join('') as AnnotationShape;
  return annotationPage(db, shape, values);
}

const findAnnotationOn = (db: Db, apiKeyId: string, organizationId: string, annotationId: string): AnnotationRow | undefined =>
  annotationQueries(db).byId.get({ apiKeyId, organizationId, annotationId });

/** The comments (with their reactions) of the given annotations, in creation order. */
function threadsOn(db: Db, apiKeyId: string, organizationId: string, annotationIds: readonly string[], commentIds?: readonly number[]): ThreadRows {
  if (annotationIds.length === 0) return { comments: [], reactions: [] };
  const values = { apiKeyId, organizationId, annotationIds: JSON.stringify(annotationIds), commentIds: commentIds && JSON.stringify(commentIds) };
  return { comments: commentRows(db, commentIds ? 'annotations+ids' : 'annotations', values), reactions: reactionRows(db, 'annotations', values) };
}

/** A thread's first comment and one of its comments (the last unless `commentId`): their text and HTML. */
function threadTextsOn(db: Db, apiKeyId: string, organizationId: string, annotationId: string, commentId?: number) {
  const queries = threadTextQueries(db);
  const thread = { apiKeyId, organizationId, annotationId };
  return { first: queries.first.get(thread), chosen: commentId === undefined ? queries.last.get(thread) : queries.one.get({ ...thread, commentId }) };
}

const annotationWhere = (apiKeyId: string, organizationId: string, annotationId: string) =>
  and(eq(commentAnnotations.apiKeyId, apiKeyId), eq(commentAnnotations.organizationId, organizationId), eq(commentAnnotations.id, annotationId));
const commentWhere = (apiKeyId: string, organizationId: string, annotationId: string, commentId: number) =>
  and(eq(comments.apiKeyId, apiKeyId), eq(comments.organizationId, organizationId), eq(comments.annotationId, annotationId), eq(comments.id, commentId));
const ofThread = (table: typeof comments | typeof reactions | typeof commentReads, apiKeyId: string, organizationId: string, annotationId: string) =>
  and(eq(table.apiKeyId, apiKeyId), eq(table.organizationId, organizationId), eq(table.annotationId, annotationId));

/** The key's comment threads. */
export function commentsRepo(engine: SqliteEngine) {
  return {
    findAnnotation: (scope: TenantScope, organizationId: string, annotationId: string) =>
      engine.read((db) => findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId)),

    /** Adds the annotation unless its id is taken; whether it was added. */
    insertAnnotation: (scope: TenantScope, row: Omit<AnnotationRow, 'apiKeyId'>, checkId: boolean) =>
      engine.write((db) => {
        if (checkId && findAnnotationOn(db, scope.apiKeyId, row.organizationId, row.id)) return false;
        insertAnnotationRow(db, { ...row, apiKeyId: scope.apiKeyId });
        return true;
      }),

    /** Changes the given fields of the annotation. */
    updateAnnotation: (scope: TenantScope, organizationId: string, annotationId: string, change: Partial<AnnotationRow>) =>
      engine.write(
        (db) =>
          void db
            .update(commentAnnotations)
            .set(change)
            .where(annotationWhere(scope.apiKeyId, organizationId, annotationId))
            .run(),
      ),

    /** Deletes the annotation with its comments, reactions and read marks (by cascade). */
    deleteAnnotation: (scope: TenantScope, organizationId: string, annotationId: string) =>
      engine.write(
        (db) =>
          void db
            .delete(commentAnnotations)
            .where(annotationWhere(scope.apiKeyId, organizationId, annotationId))
            .run(),
      ),

    /** The annotations the selection selects, in its order of (createdAt, id), after `cursor`, at most `limit`. */
    annotations: (scope: TenantScope, selection: AnnotationSelection, limit: number, cursor?: readonly unknown[] | null) =>
      engine.read((db) => selectAnnotations(db, scope.apiKeyId, selection, limit, cursor)),

    /**
     * A page of annotations (at most `limit` rows) with the threads of its first `threadsOf` rows: one step, so that
     * the page and its comments are read from the same state.
     */
    annotationsWithThreads: (scope: TenantScope, selection: AnnotationSelection, limit: number, cursor: readonly unknown[] | null, threadsOf: number) =>
      engine.read((db) => {
        const rows = selectAnnotations(db, scope.apiKeyId, selection, limit, cursor);
        const threads = threadsOn(
          db,
          scope.apiKeyId,
          selection.organizationId,
          rows.slice(0, threadsOf).map((r) => r.id),
        );
        return { rows, threads };
      }),

    /** The comments (with their reactions) of the given annotations, or of some of their comments, in creation order. */
    threads: (scope: TenantScope, organizationId: string, annotationIds: readonly string[], commentIds?: readonly number[]) =>
      engine.read((db) => threadsOn(db, scope.apiKeyId, organizationId, annotationIds, commentIds)),

    /** The annotation and its thread (or some of its comments), or undefined when there is no such annotation. */
    annotationThread: (scope: TenantScope, organizationId: string, annotationId: string, commentIds?: readonly number[]) =>
      engine.read((db) => {
        const annotation = findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId);
        return annotation && { annotation, thread: threadsOn(db, scope.apiKeyId, organizationId, [annotationId], commentIds) };
      }),

    /** A thread's first comment and one of its comments (the last unless `commentId`): their text and HTML. */
    threadTexts: (scope: TenantScope, organizationId: string, annotationId: string, commentId?: number) =>
      engine.read((db) => threadTextsOn(db, scope.apiKeyId, organizationId, annotationId, commentId)),

    /**
     * Adds a comment and marks the thread read for its author at `readAt`. Given an id, adds it unless it is taken
     * (then answers undefined); else takes the first free one `newId` proposes. Answers the comment's id.
     */
    insertComment: (scope: TenantScope, row: Omit<CommentRow, 'apiKeyId' | 'id'> & { id?: number | undefined }, readAt: number, newId: () => number) =>
      engine.write((db) => {
        const taken = (id: number) =>
          !!annotationQueries(db).commentTaken.get({ apiKeyId: scope.apiKeyId, organizationId: row.organizationId, annotationId: row.annotationId, id });
        let id = row.id;
        if (id !== undefined && taken(id)) return undefined;
        while (id === undefined) {
          const proposed = newId();
          if (!taken(proposed)) id = proposed;
        }
        insertCommentRow(db, { ...row, id, apiKeyId: scope.apiKeyId });
        upsertRead(db, { apiKeyId: scope.apiKeyId, organizationId: row.organizationId, annotationId: row.annotationId, userId: row.fromUserId, readAt });
        return id;
      }),

    findComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number) =>
      engine.read((db) =>
        db
          .select()
          .from(comments)
          .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))
          .get(),
      ),

    updateComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number, change: Partial<CommentRow>) =>
      engine.write(
        (db) =>
          void db
            .update(comments)
            .set(change)
            .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))
            .run(),
      ),

    /** Deletes the comment with its reactions (by cascade). */
    deleteComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number) =>
      engine.write(
        (db) =>
          void db
            .delete(comments)
            .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))
            .run(),
      ),

    /** Marks the annotations that exist read for the user at `at`; answers those that exist. */
    markRead: (scope: TenantScope, organizationId: string, annotationIds: Iterable<string>, userId: string, at: number) =>
      engine.write((db) => {
        const found = new Set<string>();
        for (const annotationId of annotationIds) {
          if (!findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId)) continue;
          upsertRead(db, { apiKeyId: scope.apiKeyId, organizationId, annotationId, userId, readAt: at });
          found.add(annotationId);
        }
        return found;
      }),

    /**
     * For unread counts: the annotations of the documents (with the statuses, when given) that `visible` keeps,
     * when the user last read each, and the time of each one's newest comment by someone else.
     */
    readState: (
      scope: TenantScope,
      query: { organizationId: string; documentIds: readonly string[]; userId: string; statusIds?: readonly string[] | undefined },
      visible: (row: AnnotationRow) => boolean,
    ) =>
      engine.read((db) => {
        const a = commentAnnotations;
        const conditions: SQL[] = [eq(a.apiKeyId, scope.apiKeyId), eq(a.organizationId, query.organizationId), inArray(a.documentId, [...query.documentIds])];
        if (query.statusIds?.length) conditions.push(inArray(a.statusId, [...query.statusIds]));
        const rows = db
          .select()
          .from(a)
          .where(and(...conditions))
          .all()
          .filter(visible);
        const readAt = new Map(
          db
            .select({ annotationId: commentReads.annotationId, readAt: commentReads.readAt })
            .from(commentReads)
            .where(and(eq(commentReads.apiKeyId, scope.apiKeyId), eq(commentReads.organizationId, query.organizationId), eq(commentReads.userId, query.userId)))
            .all()
            .map((r) => [r.annotationId, r.readAt]),
        );
        const latestByOthers = new Map<string, number>();
        for (let i = 0; i < rows.length; i += 500) {
          const latest = db
            .select({ annotationId: comments.annotationId, at: sql<number>`max(${comments.createdAt})` })
            .from(comments)
            .where(
              and(
                eq(comments.apiKeyId, scope.apiKeyId),
                eq(comments.organizationId, query.organizationId),
                inArray(
                  comments.annotationId,
                  rows.slice(i, i + 500).map((r) => r.id),
                ),
                sql`${comments.fromUserId} <> ${query.userId}`,
              ),
            )
            .groupBy(comments.annotationId)
            .all();
          for (const l of latest) latestByOthers.set(l.annotationId, l.at);
        }
        return { rows, readAt, latestByOthers };
      }),

    /**
     * Everything of one thread that holds users: its comments (by createdAt and id, the order of the index
     * comments_thread_time that reads them), its reactions (in creation order) and its read marks (by user, the
     * primary key's order). Each order is stated, so that another engine can answer it alike.
     */
    threadForRewrite: (scope: TenantScope, organizationId: string, annotationId: string) =>
      engine.read((db) => {
        const annotation = findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId);
        return {
          annotation,
          comments: db
            .select()
            .from(comments)
            .where(ofThread(comments, scope.apiKeyId, organizationId, annotationId))
            .orderBy(asc(comments.createdAt), asc(comments.id))
            .all(),
          reactions: db
            .select()
            .from(reactions)
            .where(ofThread(reactions, scope.apiKeyId, organizationId, annotationId))
            .orderBy(asc(reactions.createdAt), sql`rowid`)
            .all(),
          reads: db
            .select()
            .from(commentReads)
            .where(ofThread(commentReads, scope.apiKeyId, organizationId, annotationId))
            .orderBy(asc(commentReads.userId))
            .all(),
        };
      }),

    /** Writes a thread's rewrite (threadForRewrite's rows with users replaced) in one step. */
    rewriteThread: (scope: TenantScope, organizationId: string, annotationId: string, rewrite: ThreadRewrite) =>
      engine.write((db) => {
        const apiKeyId = scope.apiKeyId;
        for (const { id, change } of rewrite.comments)
          db.update(comments)
            .set(change)
            .where(commentWhere(apiKeyId, organizationId, annotationId, id))
            .run();
        if (rewrite.reactions) {
          db.delete(reactions)
            .where(ofThread(reactions, apiKeyId, organizationId, annotationId))
            .run();
          for (const r of rewrite.reactions)
            db.insert(reactions)
              .values({ ...r, apiKeyId })
              .run();
        }
        if (rewrite.reads) {
          db.delete(commentReads)
            .where(ofThread(commentReads, apiKeyId, organizationId, annotationId))
            .run();
          for (const [userId, readAt] of rewrite.reads) upsertRead(db, { apiKeyId, organizationId, annotationId, userId, readAt });
        }
        if (rewrite.annotation)
          db.update(commentAnnotations)
            .set(rewrite.annotation)
            .where(annotationWhere(apiKeyId, organizationId, annotationId))
            .run();
      }),
  };
}

export type CommentsRepo = ReturnType<typeof commentsRepo>;
