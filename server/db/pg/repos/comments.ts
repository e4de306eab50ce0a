// Comment threads on PostgreSQL: the same repository as ../../repos/comments.ts (its type is the contract;
// test/pg/comments.test.ts runs both on the same calls and compares every answer). A thread's comments and reactions
// come in creation order as on SQLite: by createdAt, then in the order the rows were inserted, SQLite's rowid and here
// the PostgreSQL-only `seq` of both tables (../schema.ts, INSERTION_ORDER_TABLES); comments' ids are chosen by the
// caller (`newId`), not increasing, so they cannot break ties. A read of several statements that SQLite answers from
// one step (a page with its threads, an annotation with its thread, a thread for its rewrite) is one REPEATABLE READ
// unit of work here, or the caller's: one instant, as SQLite's.
import { and, asc, eq, gt, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Cursor } from '../../pagination.ts';
import type { AnnotationRow, AnnotationSelection, CommentRow, CommentsRepo, ReactionRow, ThreadRows } from '../../repos/comments.ts';
import type { PgDb, PgEngine } from '../engine.ts';
import { keysetAfterPg } from '../pagination.ts';
import { insertionOrderOf, pgTableFor } from '../schema.ts';

const { table: annotations, c: a } = pgTableFor('commentAnnotations');
const { table: comments, c: cm } = pgTableFor('comments');
const { table: reads, c: rd } = pgTableFor('commentReads');
const { table: reactions, c: rx } = pgTableFor('reactions');
const { table: documents, c: d } = pgTableFor('documents');
type ReadRow = Awaited<ReturnType<CommentsRepo['threadForRewrite']>>['reads'][number];
const commentsInserted = insertionOrderOf('comments');
const reactionsInserted = insertionOrderOf('reactions');

/** `column` is one of the values: one array parameter, however many. */
const anyOf = (column: PgColumn | SQL, values: readonly string[]) => sql`${column} = ANY(${sql.param([...values])}::text[])`;

/** A table's columns as `column AS "property"`, for the named statements (SQL text) that answer rows. */
const selectList = (columns: Record<string, PgColumn>, alias: string) =>
  Object.entries(columns)
    .map(([key, column]) => `${alias}."${column.name}" AS "${key}"`)
    .join(', ');

const ANNOTATION = selectList(a, 'a');
const ANNOTATION_BY_ID = `SELECT ${ANNOTATION} FROM comment_annotations a WHERE a.api_key_id = $1 AND a.organization_id = $2 AND a.id = $3`;

async function findAnnotationOn(db: PgDb, apiKeyId: string, organizationId: string, annotationId: string): Promise<AnnotationRow | undefined> {
  const { rows } = await db.$client.query<AnnotationRow>({
    name: 'hearth-annotation-by-id',
    text: ANNOTATION_BY_ID,
    values: [apiKeyId, organizationId, annotationId],
  });
  return rows[0];
}

const THREAD = 'api_key_id = $1 AND organization_id = $2 AND annotation_id = $3';
const TEXTS = {
  first: `SELECT id, text, html FROM comments WHERE ${THREAD} ORDER BY created_at, id LIMIT 1`,
  last: `SELECT id, text, html FROM comments WHERE ${THREAD} ORDER BY created_at DESC, id DESC LIMIT 1`,
  one: `SELECT id, text, html FROM comments WHERE ${THREAD} AND id = $4`,
};
type Text = { id: number; text: string | null; html: string | null };

async function textOf(db: PgDb, which: keyof typeof TEXTS, values: unknown[]): Promise<Text | undefined> {
  const { rows } = await db.$client.query<Text>({ name: `hearth-comment-text-${which}`, text: TEXTS[which], values });
  return rows[0];
}

/** The comment's columns in the table's order; JSON ones go as their text (pg would send an array as a PostgreSQL array). */
const COMMENT_COLUMNS = Object.entries(cm);
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
/**
 * A comment and its author's read mark, one statement: the comment unless its id is taken (the check and the
 * insert in one, as two units of work under READ COMMITTED would both pass a check), the read mark only when the
 * comment went in. Answers the id when it did.
 */
const INSERT_COMMENT =
  `WITH c AS (INSERT INTO comments (${COMMENT_COLUMNS.map(([, column]) => `"${column.name}"`).join(', ')}) VALUES (${COMMENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})` +
  ' ON CONFLICT (api_key_id, organization_id, annotation_id, id) DO NOTHING RETURNING api_key_id, organization_id, annotation_id, id, from_user_id),' +
  ` r AS (INSERT INTO comment_reads (api_key_id, organization_id, annotation_id, user_id, read_at) SELECT api_key_id, organization_id, annotation_id, from_user_id, $${COMMENT_COLUMNS.length + 1} FROM c` +
  ' ON CONFLICT (api_key_id, organization_id, annotation_id, user_id) DO UPDATE SET read_at = excluded.read_at)' +
  ' SELECT id FROM c';

async function insertCommentRow(db: PgDb, row: CommentRow, readAt: number): Promise<boolean> {
  const values = COMMENT_COLUMNS.map(([key, column]) => {
    const value = (row as Record<string, unknown>)[key];
    return column.columnType === 'PgJson' ? json(value) : (value ?? null);
  });
  const { rows } = await db.$client.query({ name: 'hearth-comment-insert', text: INSERT_COMMENT, values: [...values, readAt] });
  return rows.length > 0;
}

/** The annotations the selection selects, in `order` of (createdAt, id), after `cursor`, at most `limit` (SQLite's selectAnnotations). */
async function selectAnnotations(db: PgDb, apiKeyId: string, input: AnnotationSelection, limit: number, cursor?: readonly unknown[] | null) {
  const descending = input.order === 'desc';
  const documentIds = [...(input.documentId ? [input.documentId] : []), ...(input.documentIds ?? [])];
  const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, apiKeyId), eq(a.organizationId, input.organizationId)];
  if (cursor) conditions.push(keysetAfterPg(a.createdAt, a.id, cursor as unknown as Cursor, descending));
  if (documentIds.length > 0) conditions.push(anyOf(a.documentId, documentIds));
  if (input.annotationIds !== undefined) conditions.push(anyOf(a.id, input.annotationIds));
  if (input.locationIds !== undefined) conditions.push(anyOf(a.locationId, input.locationIds));
  if (input.statusIds !== undefined) conditions.push(anyOf(a.statusId, input.statusIds));
  // by any author of one of its comments
  const ofAnnotation = sql`${cm.apiKeyId} = ${a.apiKeyId} and ${cm.organizationId} = ${a.organizationId} and ${cm.annotationId} = ${a.id}`;
  if (input.userIds !== undefined) conditions.push(sql`exists (select 1 from ${comments} where ${ofAnnotation} and ${anyOf(cm.fromUserId, input.userIds)})`);
  // mentioning one of the users in one of its comments
  if (input.mentionedUserIds !== undefined)
    conditions.push(
      sql`exists (select 1 from ${comments}, json_array_elements_text(${cm.mentionedUserIds}) m(v) where ${ofAnnotation} and ${anyOf(sql`m.v`, input.mentionedUserIds)})`,
    );
  if (input.userId !== undefined)
    conditions.push(
      or(
        eq(a.visibility, 'public'),
        eq(a.createdByUserId, input.userId),
        sql`exists (select 1 from json_array_elements_text(${a.visibleToUserIds}) v(u) where v.u = ${input.userId})`,
      ),
    );
  if (input.resolvedBy !== undefined) conditions.push(sql`${a.resolvedByUserId} = ${input.resolvedBy}`);
  // on a document registered in the folder (an annotation's document need not be registered: then in none)
  if (input.folderId !== undefined) {
    const inFolder = input.folderId === null ? isNull(d.folderId) : eq(d.folderId, input.folderId);
    conditions.push(
      sql`exists (select 1 from ${documents} where ${d.apiKeyId} = ${a.apiKeyId} and ${d.organizationId} = ${a.organizationId} and ${d.id} = ${a.documentId} and ${inFolder})`,
    );
  }
  if (input.createdAfter !== undefined) conditions.push(gt(a.createdAt, input.createdAfter));
  if (input.createdBefore !== undefined) conditions.push(lt(a.createdAt, input.createdBefore));
  if (input.updatedAfter !== undefined) conditions.push(gt(a.updatedAt, input.updatedAfter));
  if (input.updatedBefore !== undefined) conditions.push(lt(a.updatedAt, input.updatedBefore));
  const direction = descending ? sql`desc` : sql`asc`;
  return (await db
    .select()
    .from(annotations)
    .where(and(...conditions))
    .orderBy(sql`${a.createdAt} ${direction}`, sql`${a.id} ${direction}`)
    .limit(limit)) as AnnotationRow[];
}

/** The comments (with their reactions) of the given annotations, or of some of their comments, in creation order (SQLite's threadsOn). */
async function threadsOn(
  db: PgDb,
  apiKeyId: string,
  organizationId: string,
  annotationIds: readonly string[],
  commentIds?: readonly number[],
): Promise<ThreadRows> {
  if (annotationIds.length === 0) return { comments: [], reactions: [] };
  const commentRows = (await db
    .select(cm)
    .from(comments)
    .where(
      and(
        eq(cm.apiKeyId, apiKeyId),
        eq(cm.organizationId, organizationId),
        anyOf(cm.annotationId, annotationIds),
        commentIds ? sql`${cm.id} = ANY(${sql.param([...commentIds])}::bigint[])` : undefined,
      ),
    )
    .orderBy(asc(cm.createdAt), asc(commentsInserted))) as CommentRow[];
  // the annotations' reactions, all of them (as SQLite's: not only those of the comments asked for)
  const reactionRows = (await db
    .select(rx)
    .from(reactions)
    .where(and(eq(rx.apiKeyId, apiKeyId), eq(rx.organizationId, organizationId), anyOf(rx.annotationId, annotationIds)))
    .orderBy(asc(rx.createdAt), asc(reactionsInserted))) as ReactionRow[];
  return { comments: commentRows, reactions: reactionRows };
}

/** Reads of several statements as of one instant: in the caller's unit of work, or in a REPEATABLE READ one of their own. */
const atOneInstant = <T>(engine: PgEngine, statements: (db: PgDb) => Promise<T>): Promise<T> =>
  engine.inTransaction() ? engine.read(statements) : engine.transaction(() => engine.read(statements), { isolation: 'repeatable read' });

const annotationWhere = (apiKeyId: string, organizationId: string, annotationId: string) =>
  and(eq(a.apiKeyId, apiKeyId), eq(a.organizationId, organizationId), eq(a.id, annotationId));
const commentWhere = (apiKeyId: string, organizationId: string, annotationId: string, commentId: number) =>
  and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, organizationId), eq(cm.annotationId, annotationId), eq(cm.id, commentId));
const ofThread = (c: typeof rx | typeof rd, apiKeyId: string, organizationId: string, annotationId: string) =>
  and(eq(c.apiKeyId, apiKeyId), eq(c.organizationId, organizationId), eq(c.annotationId, annotationId));

export function commentsRepoPg(engine: PgEngine): CommentsRepo {
  return {
    findAnnotation: (scope, organizationId, annotationId) => engine.read((db) => findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId)),

    insertAnnotation: (scope, row, checkId) =>
      engine.write(async (db) => {
        const insert = db.insert(annotations).values({ ...row, apiKeyId: scope.apiKeyId } as never);
        if (!checkId) {
          await insert;
          return true;
        }
        // the check and the insert in one statement (see INSERT_COMMENT)
        const inserted = await insert.onConflictDoNothing({ target: [a.apiKeyId, a.organizationId, a.id] }).returning({ id: a.id });
        return inserted.length > 0;
      }),

    updateAnnotation: (scope, organizationId, annotationId, change) =>
      engine.write(
        async (db) =>
          void (await db
            .update(annotations)
            .set(change as never)
            .where(annotationWhere(scope.apiKeyId, organizationId, annotationId))),
      ),

    deleteAnnotation: (scope, organizationId, annotationId) =>
      engine.write(async (db) => void (await db.delete(annotations).where(annotationWhere(scope.apiKeyId, organizationId, annotationId)))),

    annotations: (scope, selection, limit, cursor) => engine.read((db) => selectAnnotations(db, scope.apiKeyId, selection, limit, cursor)),

    annotationsWithThreads: (scope, selection, limit, cursor, threadsOf) =>
      atOneInstant(engine, async (db) => {
        const rows = await selectAnnotations(db, scope.apiKeyId, selection, limit, cursor);
        const threads = await threadsOn(
          db,
          scope.apiKeyId,
          selection.organizationId,
          rows.slice(0, threadsOf).map((r) => r.id),
        );
        return { rows, threads };
      }),

    threads: (scope, organizationId, annotationIds, commentIds) =>
      atOneInstant(engine, (db) => threadsOn(db, scope.apiKeyId, organizationId, annotationIds, commentIds)),

    annotationThread: (scope, organizationId, annotationId, commentIds) =>
      atOneInstant(engine, async (db) => {
        const annotation = await findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId);
        return annotation && { annotation, thread: await threadsOn(db, scope.apiKeyId, organizationId, [annotationId], commentIds) };
      }),

    threadTexts: (scope, organizationId, annotationId, commentId) =>
      engine.read(async (db) => {
        const thread = [scope.apiKeyId, organizationId, annotationId];
        return {
          first: await textOf(db, 'first', thread),
          chosen: commentId === undefined ? await textOf(db, 'last', thread) : await textOf(db, 'one', [...thread, commentId]),
        };
      }),

    insertComment: (scope, row, readAt, newId) =>
      engine.write(async (db) => {
        const insert = (id: number) => insertCommentRow(db, { ...row, id, apiKeyId: scope.apiKeyId } as CommentRow, readAt);
        if (row.id !== undefined) return (await insert(row.id)) ? row.id : undefined;
        // the first free id newId proposes, as SQLite's check of each
        for (;;) {
          const proposed = newId();
          if (await insert(proposed)) return proposed;
        }
      }),

    findComment: (scope, organizationId, annotationId, commentId) =>
      engine.read(
        async (db) =>
          (
            await db
              .select(cm)
              .from(comments)
              .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))
              .limit(1)
          )[0] as CommentRow | undefined,
      ),

    updateComment: (scope, organizationId, annotationId, commentId, change) =>
      engine.write(
        async (db) =>
          void (await db
            .update(comments)
            .set(change as never)
            .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))),
      ),

    deleteComment: (scope, organizationId, annotationId, commentId) =>
      engine.write(async (db) => void (await db.delete(comments).where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId)))),

    markRead: (scope, organizationId, annotationIds, userId, at) =>
      engine.write(async (db) => {
        const asked = [...annotationIds];
        const found = new Set<string>();
        if (asked.length === 0) return found;
        // the marks of those that exist, one statement
        const { rows } = await db.$client.query<{ id: string }>({
          name: 'hearth-comment-mark-read',
          text:
            'INSERT INTO comment_reads (api_key_id, organization_id, annotation_id, user_id, read_at)' +
            ' SELECT a.api_key_id, a.organization_id, a.id, $4, $5 FROM comment_annotations a WHERE a.api_key_id = $1 AND a.organization_id = $2 AND a.id = ANY($3::text[])' +
            ' ON CONFLICT (api_key_id, organization_id, annotation_id, user_id) DO UPDATE SET read_at = excluded.read_at RETURNING annotation_id AS id',
          values: [scope.apiKeyId, organizationId, asked, userId, at],
        });
        const marked = new Set(rows.map((r) => r.id));
        // in the order asked, as SQLite's one step per id answers
        for (const id of asked) if (marked.has(id)) found.add(id);
        return found;
      }),

    readState: (scope, query, visible) =>
      engine.read(async (db) => {
        const conditions: SQL[] = [eq(a.apiKeyId, scope.apiKeyId), eq(a.organizationId, query.organizationId), anyOf(a.documentId, query.documentIds)];
        if (query.statusIds?.length) conditions.push(anyOf(a.statusId, query.statusIds));
        // in the order of SQLite's plan (the index comment_annotations_document: document, createdAt, id)
        const rows = (
          (await db
            .select()
            .from(annotations)
            .where(and(...conditions))
            .orderBy(asc(a.documentId), asc(a.createdAt), asc(a.id))) as AnnotationRow[]
        ).filter(visible);
        const readAt = new Map(
          (
            (await db
              .select({ annotationId: rd.annotationId, readAt: rd.readAt })
              .from(reads)
              .where(and(eq(rd.apiKeyId, scope.apiKeyId), eq(rd.organizationId, query.organizationId), eq(rd.userId, query.userId)))
              .orderBy(asc(rd.annotationId))) as Array<{ annotationId: string; readAt: number }>
          ).map((r) => [r.annotationId, r.readAt]),
        );
        const latestByOthers = new Map<string, number>();
        if (rows.length > 0) {
          const latest = (await db
            .select({ annotationId: cm.annotationId, at: sql<number>`max(${cm.createdAt})`.mapWith(Number) })
            .from(comments)
            .where(
              and(
                eq(cm.apiKeyId, scope.apiKeyId),
                eq(cm.organizationId, query.organizationId),
                anyOf(
                  cm.annotationId,
                  rows.map((r) => r.id),
                ),
                sql`${cm.fromUserId} <> ${query.userId}`,
              ),
            )
            .groupBy(cm.annotationId)
            .orderBy(asc(cm.annotationId))) as Array<{ annotationId: string; at: number }>;
          for (const l of latest) latestByOthers.set(l.annotationId, l.at);
        }
        return { rows, readAt, latestByOthers };
      }),

    threadForRewrite: (scope, organizationId, annotationId) =>
      atOneInstant(engine, async (db) => {
        const apiKeyId = scope.apiKeyId;
        const annotation = await findAnnotationOn(db, apiKeyId, organizationId, annotationId);
        // comments by (createdAt, id) and read marks by user, as SQLite states them; reactions in creation order
        const threadComments = (await db
          .select(cm)
          .from(comments)
          .where(and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, organizationId), eq(cm.annotationId, annotationId)))
          .orderBy(asc(cm.createdAt), asc(cm.id))) as CommentRow[];
        const threadReactions = (await db
          .select(rx)
          .from(reactions)
          .where(ofThread(rx, apiKeyId, organizationId, annotationId))
          .orderBy(asc(rx.createdAt), asc(reactionsInserted))) as ReactionRow[];
        const threadReads = (await db
          .select(rd)
          .from(reads)
          .where(ofThread(rd, apiKeyId, organizationId, annotationId))
          .orderBy(asc(rd.userId))) as ReadRow[];
        return { annotation, comments: threadComments, reactions: threadReactions, reads: threadReads };
      }),

    rewriteThread: (scope, organizationId, annotationId, rewrite) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        for (const { id, change } of rewrite.comments)
          await db
            .update(comments)
            .set(change as never)
            .where(commentWhere(apiKeyId, organizationId, annotationId, id));
        if (rewrite.reactions) {
          await db.delete(reactions).where(ofThread(rx, apiKeyId, organizationId, annotationId));
          if (rewrite.reactions.length > 0) await db.insert(reactions).values(rewrite.reactions.map((r) => ({ ...r, apiKeyId })) as never);
        }
        if (rewrite.reads) {
          await db.delete(reads).where(ofThread(rd, apiKeyId, organizationId, annotationId));
          if (rewrite.reads.size > 0)
            await db.insert(reads).values([...rewrite.reads].map(([userId, readAt]) => ({ apiKeyId, organizationId, annotationId, userId, readAt })) as never);
        }
        if (rewrite.annotation)
          await db
            .update(annotations)
            .set(rewrite.annotation as never)
            .where(annotationWhere(apiKeyId, organizationId, annotationId));
      }),
  };
}
