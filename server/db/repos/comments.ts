// Comment threads: annotations, their comments, who read them, and (to show a thread) the comments' reactions.
// Reactions are written by their own service (services/reactions.ts); here they are read with a thread and
// rewritten only when users are replaced in it. Written once for both engines (engine.ts; test/pg/comments.test.ts
// runs it on both and compares every answer).
//
// A thread's comments and reactions come in creation order: by createdAt, then in the order the rows were inserted
// (comments' ids are chosen by the caller, `newId`, not increasing, so they cannot break ties). The reads of several
// statements that must answer one state of the data (a page with its threads, an annotation with its thread, a
// thread, a thread for its rewrite) are the one place each engine runs its own way (atOneInstant, below).
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { z } from 'zod';
import type { annotationFilters, annotationsGetInput } from '../../../shared/schemas/comments.ts';
import type { Engine, Placeholders, Prepared, Q } from '../engine.ts';
import { keysetAfter } from '../pagination.ts';
import { listValues, preparedFor, preparedShapes } from '../prepared.ts';
import type { commentAnnotations, comments, reactions, CommentExtra, StoredUser } from '../schema.ts';
import type { TenantScope } from '../scope.ts';

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

/**
 * How many annotation page shapes get a prepared statement of their own (as activities.ts's): past this many, a shape
 * is built per call with its values, so that neither engine keeps statements without bound.
 */
const MAX_SHAPES = 256;

/** Rows of a rewrite are written in slices of this many: far from either engine's bound-parameter limit. */
const SLICE = 500;

/** What the SQL of this repository says differently on each engine (below, in one place). */
interface EngineSql {
  /** `expr` is one of the values of `list`: a list bound as one parameter (a placeholder, or `sql.param(listOf(…))`). */
  inList(expr: SQLWrapper, list: SQLWrapper, type?: 'text' | 'bigint'): SQL;
  /** A list's value for inList's parameter. */
  listOf(values: readonly (string | number)[]): unknown;
  /** The elements of a JSON array column, as a table named `alias` of one column, `value` (none for NULL). */
  elements(column: SQLiteColumn, alias: string): SQL;
}

/** The key's comment threads. */
export function commentsRepo(engine: Engine) {
  const { commentAnnotations: a, comments: cm, commentReads: rd, reactions: rx, documents: d } = engine.t;

  // What differs between the engines, and why:
  // - a list of any length is one parameter (one prepared statement for all, and no list past a bound-parameter
  //   limit): SQLite has no array type and reads a JSON array's elements (json_each), PostgreSQL binds an array;
  // - a JSON array column's elements: json_each on SQLite, json_array_elements_text on PostgreSQL (json columns);
  // - (creation order is createdAt, then the order the rows were inserted in: engine.insertionOrder, rowid or seq;)
  // - and how reads of several statements are made one instant: atOneInstant, below.
  const dialect: EngineSql =
    engine.kind === 'sqlite'
      ? {
          inList: (expr, list) => sql`${expr} in (select value from json_each(${list}))`,
          listOf: (values) => JSON.stringify(values),
          elements: (column, alias) => sql`json_each(${column}) ${sql.raw(alias)}`,
        }
      : {
          inList: (expr, list, type = 'text') => sql`${expr} = any(${list}::${sql.raw(type)}[])`,
          listOf: (values) => [...values],
          elements: (column, alias) => sql`json_array_elements_text(${column}) ${sql.raw(alias)}(value)`,
        };
  const inValues = (column: SQLiteColumn, values: readonly string[]) => dialect.inList(column, sql.param(dialect.listOf(values)));

  // whole rows: PostgreSQL's comments and reactions carry their insertion order (`seq`) beside the source's columns
  const commentColumns = engine.columns(cm);
  const reactionColumns = engine.columns(rx);

  /**
   * A whole row written by a statement prepared once per connection. Its values are the columns' driver values, each
   * given as is (`sql` around the placeholder): drizzle's placeholder in an insert would encode a null through its
   * column too, and a null JSON would be stored as the text `null` (activities.ts).
   */
  const wholeRow = <T extends SQLiteTable>(table: T) => {
    const columns = Object.entries(engine.columns(table) as Record<string, SQLiteColumn>);
    return {
      values: Object.fromEntries(columns.map(([name]) => [name, sql`${P(name)}`])) as Record<keyof T['$inferInsert'], SQL>,
      of: (row: Record<string, unknown>): Placeholders =>
        Object.fromEntries(
          columns.map(([name, column]) => {
            const value = row[name];
            return [name, value === null || value === undefined ? null : column.mapToDriverValue(value)];
          }),
        ),
    };
  };
  const annotationRow = wholeRow(a);
  const commentRow = wholeRow(cm);

  const annotationKey = [a.apiKeyId, a.organizationId, a.id];
  const commentKey = [cm.apiKeyId, cm.organizationId, cm.annotationId, cm.id];
  const readKey = [rd.apiKeyId, rd.organizationId, rd.annotationId, rd.userId];
  const ofThreadBy = (t: typeof cm | typeof rx | typeof rd) => [
    eq(t.apiKeyId, P('apiKeyId')),
    eq(t.organizationId, P('organizationId')),
    eq(t.annotationId, P('annotationId')),
  ];

  const annotationOf = (db: Q) =>
    db
      .select()
      .from(a)
      .where(and(eq(a.apiKeyId, P('apiKeyId')), eq(a.organizationId, P('organizationId')), eq(a.id, P('annotationId'))));
  const annotationById = engine.prepare('comments.annotation', annotationOf);
  const findAnnotationOn = (db: Q, apiKeyId: string, organizationId: string, annotationId: string): Promise<AnnotationRow | undefined> =>
    annotationById.one(db, { apiKeyId, organizationId, annotationId });

  const addAnnotation = engine.prepare('comments.addAnnotation', (db) => db.insert(a).values(annotationRow.values));
  // the check and the insert in one statement: two units of work under READ COMMITTED would both pass a check
  const addAnnotationOnce = engine.prepare('comments.addAnnotationOnce', (db) =>
    db.insert(a).values(annotationRow.values).onConflictDoNothing({ target: annotationKey }),
  );
  // a comment unless its id is taken (the check and the insert in one statement, as above), then its author's read mark
  const addComment = engine.prepare('comments.add', (db) => db.insert(cm).values(commentRow.values).onConflictDoNothing({ target: commentKey }));
  const markOne = engine.prepare('comments.markOne', (db) =>
    db
      .insert(rd)
      .values({ apiKeyId: P('apiKeyId'), organizationId: P('organizationId'), annotationId: P('annotationId'), userId: P('userId'), readAt: P('readAt') })
      .onConflictDoUpdate({ target: readKey, set: { readAt: sql`excluded.read_at` } }),
  );
  // the marks of those annotations that exist, one statement: an annotation deleted meanwhile fails its foreign key on
  // PostgreSQL, and the unit runs again (pg/engine.ts) and finds it gone
  const markMany = engine.prepare('comments.markRead', (db) =>
    db
      .insert(rd)
      .select(
        db
          .select({
            apiKeyId: a.apiKeyId,
            organizationId: a.organizationId,
            annotationId: a.id,
            userId: sql`${P('userId')}`.as('user_id'),
            readAt: sql`${P('at')}`.as('read_at'),
          })
          .from(a)
          .where(and(eq(a.apiKeyId, P('apiKeyId')), eq(a.organizationId, P('organizationId')), dialect.inList(a.id, P('annotationIds')))),
      )
      .onConflictDoUpdate({ target: readKey, set: { readAt: sql`excluded.read_at` } })
      .returning({ id: rd.annotationId }),
  );
  const commentById = engine.prepare('comments.comment', (db) =>
    db
      .select(commentColumns)
      .from(cm)
      .where(and(...ofThreadBy(cm), eq(cm.id, P('commentId'))))
      .limit(1),
  );

  /**
   * A thread's first and last comment, and one comment by id: prepared once per connection. First and last are each
   * one step on the index `comments_thread_time`; without it they sorted the whole thread on every reply.
   */
  const pick = { id: cm.id, text: cm.text, html: cm.html };
  const firstText = engine.prepare('comments.first', (db) =>
    db
      .select(pick)
      .from(cm)
      .where(and(...ofThreadBy(cm)))
      .orderBy(asc(cm.createdAt), asc(cm.id))
      .limit(1),
  );
  const lastText = engine.prepare('comments.last', (db) =>
    db
      .select(pick)
      .from(cm)
      .where(and(...ofThreadBy(cm)))
      .orderBy(desc(cm.createdAt), desc(cm.id))
      .limit(1),
  );
  const oneText = engine.prepare('comments.one', (db) =>
    db
      .select(pick)
      .from(cm)
      .where(and(...ofThreadBy(cm), eq(cm.id, P('commentId')))),
  );

  /** The comments of some annotations (and of `Some`, only some comment ids), and their reactions, in creation order. */
  const ofAnnotations = (t: typeof cm | typeof rx) => [
    eq(t.apiKeyId, P('apiKeyId')),
    eq(t.organizationId, P('organizationId')),
    dialect.inList(t.annotationId, P('annotationIds')),
  ];
  const commentsOf = (db: Q, some: boolean) =>
    db
      .select(commentColumns)
      .from(cm)
      .where(and(...ofAnnotations(cm), some ? dialect.inList(cm.id, P('commentIds'), 'bigint') : undefined))
      .orderBy(asc(cm.createdAt), engine.insertionOrder('comments'));
  const reactionsOf = (db: Q) =>
    db
      .select(reactionColumns)
      .from(rx)
      .where(and(...ofAnnotations(rx)))
      .orderBy(asc(rx.createdAt), engine.insertionOrder('reactions'));
  const threadComments = engine.prepare('comments.threads', (db) => commentsOf(db, false));
  const threadCommentsSome = engine.prepare('comments.threadsSome', (db) => commentsOf(db, true));
  const threadReactions = engine.prepare('comments.reactions', reactionsOf);
  /** The placeholders' values of a thread's statements; undefined when no annotation is asked for. */
  const threadValues = (apiKeyId: string, organizationId: string, annotationIds: readonly string[], commentIds?: readonly number[]) =>
    annotationIds.length === 0
      ? undefined
      : { apiKeyId, organizationId, annotationIds: dialect.listOf(annotationIds), commentIds: commentIds && dialect.listOf(commentIds) };

  /** The comments (with their reactions) of the given annotations, in creation order. */
  async function threadsOn(
    db: Q,
    apiKeyId: string,
    organizationId: string,
    annotationIds: readonly string[],
    commentIds?: readonly number[],
  ): Promise<ThreadRows> {
    const values = threadValues(apiKeyId, organizationId, annotationIds, commentIds);
    if (!values) return { comments: [], reactions: [] };
    const threadCommentRows = await (commentIds ? threadCommentsSome : threadComments).all(db, values);
    // the annotations' reactions, all of them (not only those of the comments asked for)
    return { comments: threadCommentRows, reactions: await threadReactions.all(db, values) };
  }

  /**
   * The annotations page of one filter shape (`value` gives a placeholder, or the value itself for a shape built per
   * call). The shape is `<` or `>` (the order), `a` after a cursor, `:`, how many document ids, `:`, and a letter per
   * other filter: i(ds), l(ocations), s(tatuses), w(riters: authors), m(entions), v(iewer), r(esolver), f(older) or
   * t(op), c(reated after), e(arlier: created before), n(ewer: updated after), o(lder: updated before). Document ids
   * get one placeholder each (a single one reads the document index in order, as `=` does); the other lists, which no
   * index leads with, are one parameter each.
   */
  const pageOf = (db: Q, shape: string, value: (name: string) => Placeholder) => {
    const [head, documentCount, flags] = shape.split(':') as [string, string, string];
    const descending = head.startsWith('<');
    const has = (flag: string) => flags.includes(flag);
    const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, value('apiKeyId')), eq(a.organizationId, value('organizationId'))];
    if (head.endsWith('a')) conditions.push(keysetAfter(a.createdAt, a.id, [value('afterCreatedAt'), value('afterId')], descending));
    if (documentCount !== '0')
      conditions.push(
        inArray(
          a.documentId,
          Array.from({ length: Number(documentCount) }, (_, i) => value(`document${i}`)),
        ),
      );
    if (has('i')) conditions.push(dialect.inList(a.id, value('annotationIds')));
    if (has('l')) conditions.push(dialect.inList(a.locationId, value('locationIds')));
    if (has('s')) conditions.push(dialect.inList(a.statusId, value('statusIds')));
    // by any author of one of its comments
    const ofAnnotation = sql`${cm.apiKeyId} = ${a.apiKeyId} and ${cm.organizationId} = ${a.organizationId} and ${cm.annotationId} = ${a.id}`;
    if (has('w')) conditions.push(sql`exists (select 1 from ${cm} where ${ofAnnotation} and ${dialect.inList(cm.fromUserId, value('userIds'))})`);
    // mentioning one of the users in one of its comments
    if (has('m'))
      conditions.push(
        sql`exists (select 1 from ${cm}, ${dialect.elements(cm.mentionedUserIds, 'm')} where ${ofAnnotation} and ${dialect.inList(sql`m.value`, value('mentionedUserIds'))})`,
      );
    if (has('v'))
      conditions.push(
        or(
          eq(a.visibility, 'public'),
          eq(a.createdByUserId, value('userId')),
          sql`exists (select 1 from ${dialect.elements(a.visibleToUserIds, 'v')} where v.value = ${value('userId')})`,
        ),
      );
    if (has('r')) conditions.push(eq(a.resolvedByUserId, value('resolvedBy')));
    // on a document registered in the folder (an annotation's document need not be registered: then in none)
    if (has('f') || has('t')) {
      const inFolder = has('t') ? isNull(d.folderId) : eq(d.folderId, value('folderId'));
      conditions.push(
        sql`exists (select 1 from ${d} where ${d.apiKeyId} = ${a.apiKeyId} and ${d.organizationId} = ${a.organizationId} and ${d.id} = ${a.documentId} and ${inFolder})`,
      );
    }
    if (has('c')) conditions.push(gt(a.createdAt, value('createdAfter')));
    if (has('e')) conditions.push(lt(a.createdAt, value('createdBefore')));
    if (has('n')) conditions.push(gt(a.updatedAt, value('updatedAfter')));
    if (has('o')) conditions.push(lt(a.updatedAt, value('updatedBefore')));
    const direction = descending ? desc : asc;
    return db
      .select()
      .from(a)
      .where(and(...conditions))
      .orderBy(direction(a.createdAt), direction(a.id))
      .limit(value('limit'));
  };
  const pages = new Map<string, Prepared<AnnotationRow>>();

  /** The page statement's shape and its placeholders' values for a selection, `limit` and `cursor`. */
  function pageCall(apiKeyId: string, input: AnnotationSelection, limit: number, cursor?: readonly unknown[] | null) {
    const documentIds = [...(input.documentId ? [input.documentId] : []), ...(input.documentIds ?? [])];
    const list = (values: readonly string[] | undefined) => values && dialect.listOf(values);
    const values: Record<string, unknown> = {
      apiKeyId,
      organizationId: input.organizationId,
      afterCreatedAt: cursor?.[0],
      afterId: cursor?.[1],
      annotationIds: list(input.annotationIds),
      locationIds: list(input.locationIds),
      statusIds: list(input.statusIds),
      userIds: list(input.userIds),
      mentionedUserIds: list(input.mentionedUserIds),
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
      `${input.order === 'desc' ? '<' : '>'}${cursor ? 'a' : ''}:${documentIds.length}:`,
      has(input.annotationIds, 'i'),
      has(input.locationIds, 'l'),
      has(input.statusIds, 's'),
      has(input.userIds, 'w'),
      has(input.mentionedUserIds, 'm'),
      has(input.userId, 'v'),
      has(input.resolvedBy, 'r'),
      has(input.folderId, input.folderId === null ? 't' : 'f'),
      has(input.createdAfter, 'c'),
      has(input.createdBefore, 'e'),
      has(input.updatedAfter, 'n'),
      has(input.updatedBefore, 'o'),
    ].join('');
    return { shape, values };
  }

  /** The annotations the selection selects, in `order` of (createdAt, id), after `cursor`, at most `limit`. */
  async function selectAnnotations(db: Q, { shape, values }: ReturnType<typeof pageCall>): Promise<AnnotationRow[]> {
    let prepared = pages.get(shape);
    if (!prepared && pages.size < MAX_SHAPES) pages.set(shape, (prepared = engine.prepare(`comments.page${shape}`, (db) => pageOf(db, shape, P))));
    if (prepared) return prepared.all(db, values);
    // a shape past MAX_SHAPES: the same statement with the values where its placeholders would be (a list as one parameter)
    return pageOf(db, shape, (name) => {
      const value = values[name];
      return (Array.isArray(value) ? sql.param(value) : value) as Placeholder;
    });
  }

  const annotationWhere = (apiKeyId: string, organizationId: string, annotationId: string) =>
    and(eq(a.apiKeyId, apiKeyId), eq(a.organizationId, organizationId), eq(a.id, annotationId));
  const commentWhere = (apiKeyId: string, organizationId: string, annotationId: string, commentId: number) =>
    and(eq(cm.apiKeyId, apiKeyId), eq(cm.organizationId, organizationId), eq(cm.annotationId, annotationId), eq(cm.id, commentId));
  const ofThread = (t: typeof cm | typeof rx | typeof rd, apiKeyId: string, organizationId: string, annotationId: string) =>
    and(eq(t.apiKeyId, apiKeyId), eq(t.organizationId, organizationId), eq(t.annotationId, annotationId));

  /**
   * Reads of several statements that must answer one state of the data, each engine its own way, and the one place
   * this repository's methods are written per engine. SQLite: one synchronous step (`sqlite`), on the connection of
   * reads or in the caller's unit of work, as before the one code; awaiting between its statements would let another
   * unit of work commit between them, and its snapshot reads (engine.snapshot) run on a connection of their own, one
   * at a time, where the hot page of annotations with its threads should not go. Its statements are drizzle's
   * synchronous ones, built by the same builders as the engine's prepared statements and prepared once per connection
   * (`now`, `pagesNow`). PostgreSQL: each statement awaited (`pg`), in a snapshot: REPEATABLE READ, or the caller's unit
   * of work.
   */
  const atOneInstant = <T>(sqlite: (db: Q) => T, pg: (db: Q) => Promise<T>): Promise<T> =>
    engine.kind === 'sqlite' ? engine.read(async (db) => sqlite(db)) : engine.snapshot(pg);
  const now = preparedFor((db) => ({
    annotation: annotationOf(db).prepare(),
    threadComments: commentsOf(db, false).prepare(),
    threadCommentsSome: commentsOf(db, true).prepare(),
    threadReactions: reactionsOf(db).prepare(),
  }));
  const pagesNow = preparedShapes((db, shape: string) => pageOf(db, shape, P).prepare());
  /** threadsOn as SQLite's synchronous step. */
  function threadsNow(db: Q, apiKeyId: string, organizationId: string, annotationIds: readonly string[], commentIds?: readonly number[]): ThreadRows {
    const values = threadValues(apiKeyId, organizationId, annotationIds, commentIds);
    if (!values) return { comments: [], reactions: [] };
    const statements = now(db);
    return {
      comments: (commentIds ? statements.threadCommentsSome : statements.threadComments).all(values),
      reactions: statements.threadReactions.all(values),
    };
  }
  /**
   * The statements of a thread's rewrite read (threadForRewrite): its annotation, its comments (by createdAt and id),
   * its reactions (in creation order) and its read marks (by user). Built per call (users/replace is no hot path).
   */
  const forRewrite = (db: Q, apiKeyId: string, organizationId: string, annotationId: string) => ({
    annotation: db
      .select()
      .from(a)
      .where(annotationWhere(apiKeyId, organizationId, annotationId))
      .limit(1),
    comments: db
      .select(commentColumns)
      .from(cm)
      .where(ofThread(cm, apiKeyId, organizationId, annotationId))
      .orderBy(asc(cm.createdAt), asc(cm.id)),
    reactions: db
      .select(reactionColumns)
      .from(rx)
      .where(ofThread(rx, apiKeyId, organizationId, annotationId))
      .orderBy(asc(rx.createdAt), engine.insertionOrder('reactions')),
    reads: db
      .select()
      .from(rd)
      .where(ofThread(rd, apiKeyId, organizationId, annotationId))
      .orderBy(asc(rd.userId)),
  });

  return {
    findAnnotation: (scope: TenantScope, organizationId: string, annotationId: string) =>
      engine.read((db) => findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId)),

    /** Adds the annotation unless its id is taken; whether it was added. */
    insertAnnotation: (scope: TenantScope, row: Omit<AnnotationRow, 'apiKeyId'>, checkId: boolean) =>
      engine.write(async (db) => {
        const values = annotationRow.of({ ...row, apiKeyId: scope.apiKeyId });
        if (!checkId) {
          await addAnnotation.run(db, values);
          return true;
        }
        return (await addAnnotationOnce.run(db, values)) > 0;
      }),

    /** Changes the given fields of the annotation. */
    updateAnnotation: (scope: TenantScope, organizationId: string, annotationId: string, change: Partial<AnnotationRow>) =>
      engine.write(
        async (db) =>
          void (await db
            .update(a)
            .set(change)
            .where(annotationWhere(scope.apiKeyId, organizationId, annotationId))),
      ),

    /**
     * Moves the annotation's last update to `at`, unless it is later already: writers that commit out of their clocks'
     * order (PostgreSQL at READ COMMITTED, each waiting on the row's lock) leave the latest time, not the last commit's.
     */
    touchAnnotation: (scope: TenantScope, organizationId: string, annotationId: string, at: number) =>
      engine.write(
        async (db) =>
          void (await db
            .update(a)
            .set({ updatedAt: sql`CASE WHEN ${a.updatedAt} > ${at} THEN ${a.updatedAt} ELSE ${at} END` })
            .where(annotationWhere(scope.apiKeyId, organizationId, annotationId))),
      ),

    /**
     * Takes the annotations' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite): a second
     * delete of an annotation waits for the first's commit, then reads it gone.
     */
    lockAnnotations: (scope: TenantScope, organizationId: string, annotationIds: readonly string[]) =>
      engine.write((db) => engine.lockRows(db, ['annotation', scope.apiKeyId, organizationId], annotationIds)),

    /** Deletes the annotation with its comments, reactions and read marks (by cascade). */
    deleteAnnotation: (scope: TenantScope, organizationId: string, annotationId: string) =>
      engine.write(async (db) => void (await db.delete(a).where(annotationWhere(scope.apiKeyId, organizationId, annotationId)))),

    /** The annotations the selection selects, in its order of (createdAt, id), after `cursor`, at most `limit`. */
    annotations: (scope: TenantScope, selection: AnnotationSelection, limit: number, cursor?: readonly unknown[] | null) =>
      engine.read((db) => selectAnnotations(db, pageCall(scope.apiKeyId, selection, limit, cursor))),

    /**
     * A page of annotations (at most `limit` rows) with the threads of its first `threadsOf` rows: one step, so that
     * the page and its comments are read from the same state.
     */
    annotationsWithThreads: (scope: TenantScope, selection: AnnotationSelection, limit: number, cursor: readonly unknown[] | null, threadsOf: number) => {
      const page = pageCall(scope.apiKeyId, selection, limit, cursor);
      const threaded = (rows: AnnotationRow[]) => rows.slice(0, threadsOf).map((r) => r.id);
      return atOneInstant(
        (db) => {
          const rows = pagesNow(db, page.shape).all(page.values);
          return { rows, threads: threadsNow(db, scope.apiKeyId, selection.organizationId, threaded(rows)) };
        },
        async (db) => {
          const rows = await selectAnnotations(db, page);
          return { rows, threads: await threadsOn(db, scope.apiKeyId, selection.organizationId, threaded(rows)) };
        },
      );
    },

    /** The comments (with their reactions) of the given annotations, or of some of their comments, in creation order. */
    threads: (scope: TenantScope, organizationId: string, annotationIds: readonly string[], commentIds?: readonly number[]) =>
      atOneInstant(
        (db) => threadsNow(db, scope.apiKeyId, organizationId, annotationIds, commentIds),
        (db) => threadsOn(db, scope.apiKeyId, organizationId, annotationIds, commentIds),
      ),

    /** The annotation and its thread (or some of its comments), or undefined when there is no such annotation. */
    annotationThread: (scope: TenantScope, organizationId: string, annotationId: string, commentIds?: readonly number[]) =>
      atOneInstant(
        (db) => {
          const annotation = now(db).annotation.get({ apiKeyId: scope.apiKeyId, organizationId, annotationId });
          return annotation && { annotation, thread: threadsNow(db, scope.apiKeyId, organizationId, [annotationId], commentIds) };
        },
        async (db) => {
          const annotation = await findAnnotationOn(db, scope.apiKeyId, organizationId, annotationId);
          return annotation && { annotation, thread: await threadsOn(db, scope.apiKeyId, organizationId, [annotationId], commentIds) };
        },
      ),

    /** A thread's first comment and one of its comments (the last unless `commentId`): their text and HTML. */
    threadTexts: (scope: TenantScope, organizationId: string, annotationId: string, commentId?: number) =>
      engine.read(async (db) => {
        const thread = { apiKeyId: scope.apiKeyId, organizationId, annotationId };
        const [first, chosen] = await Promise.all([
          firstText.one(db, thread),
          commentId === undefined ? lastText.one(db, thread) : oneText.one(db, { ...thread, commentId }),
        ]);
        return { first, chosen };
      }),

    /**
     * Adds a comment and marks the thread read for its author at `readAt`. Given an id, adds it unless it is taken
     * (then answers undefined); else takes the first free one `newId` proposes. Answers the comment's id.
     */
    insertComment: (scope: TenantScope, row: Omit<CommentRow, 'apiKeyId' | 'id'> & { id?: number | undefined }, readAt: number, newId: () => number) =>
      engine.write(async (db) => {
        const values = commentRow.of({ ...row, apiKeyId: scope.apiKeyId });
        const added = async (id: number) => (await addComment.run(db, { ...values, id })) > 0;
        let id = row.id;
        if (id !== undefined && !(await added(id))) return undefined;
        while (id === undefined) {
          const proposed = newId();
          if (await added(proposed)) id = proposed;
        }
        await markOne.run(db, { apiKeyId: scope.apiKeyId, organizationId: row.organizationId, annotationId: row.annotationId, userId: row.fromUserId, readAt });
        return id;
      }),

    /**
     * Takes the comments' key locks for the rest of the unit of work (engine.lockRows; nothing on SQLite, whose write
     * unit holds the database): on PostgreSQL at READ COMMITTED, a second update or delete of a comment waits for the
     * first's commit, then reads the comment as the first left it.
     */
    lockComments: (scope: TenantScope, organizationId: string, annotationId: string, commentIds: readonly number[]) =>
      engine.write((db) =>
        engine.lockRows(
          db,
          ['comment', scope.apiKeyId, organizationId, annotationId],
          commentIds.map((id) => String(id)),
        ),
      ),

    findComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number) =>
      engine.read((db) => commentById.one(db, { apiKeyId: scope.apiKeyId, organizationId, annotationId, commentId })),

    updateComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number, change: Partial<CommentRow>) =>
      engine.write(
        async (db) =>
          void (await db
            .update(cm)
            .set(change)
            .where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId))),
      ),

    /** Deletes the comment with its reactions (by cascade). */
    deleteComment: (scope: TenantScope, organizationId: string, annotationId: string, commentId: number) =>
      engine.write(async (db) => void (await db.delete(cm).where(commentWhere(scope.apiKeyId, organizationId, annotationId, commentId)))),

    /** Marks the annotations that exist read for the user at `at`; answers those that exist. */
    markRead: (scope: TenantScope, organizationId: string, annotationIds: Iterable<string>, userId: string, at: number) =>
      engine.write(async (db) => {
        const asked = [...annotationIds];
        const found = new Set<string>();
        if (asked.length === 0) return found;
        const marked = new Set(
          (await markMany.all(db, { apiKeyId: scope.apiKeyId, organizationId, annotationIds: dialect.listOf(asked), userId, at })).map((r) => r.id),
        );
        // in the order asked
        for (const id of asked) if (marked.has(id)) found.add(id);
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
      engine.read(async (db) => {
        const conditions: SQL[] = [eq(a.apiKeyId, scope.apiKeyId), eq(a.organizationId, query.organizationId), inArray(a.documentId, [...query.documentIds])];
        if (query.statusIds?.length) conditions.push(inArray(a.statusId, [...query.statusIds]));
        // by document, then (createdAt, id): the order of the index comment_annotations_document that reads them
        const rows = (
          await db
            .select()
            .from(a)
            .where(and(...conditions))
            .orderBy(asc(a.documentId), asc(a.createdAt), asc(a.id))
        ).filter(visible);
        const readAt = new Map(
          (
            await db
              .select({ annotationId: rd.annotationId, readAt: rd.readAt })
              .from(rd)
              .where(and(eq(rd.apiKeyId, scope.apiKeyId), eq(rd.organizationId, query.organizationId), eq(rd.userId, query.userId)))
              .orderBy(asc(rd.annotationId))
          ).map((r) => [r.annotationId, r.readAt]),
        );
        const latestByOthers = new Map<string, number>();
        if (rows.length > 0) {
          const latest = await db
            .select({ annotationId: cm.annotationId, at: sql<number>`max(${cm.createdAt})`.mapWith(Number) })
            .from(cm)
            .where(
              and(
                eq(cm.apiKeyId, scope.apiKeyId),
                eq(cm.organizationId, query.organizationId),
                inValues(
                  cm.annotationId,
                  rows.map((r) => r.id),
                ),
                sql`${cm.fromUserId} <> ${query.userId}`,
              ),
            )
            .groupBy(cm.annotationId)
            .orderBy(asc(cm.annotationId));
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
      atOneInstant(
        (db) => {
          const q = forRewrite(db, scope.apiKeyId, organizationId, annotationId);
          return { annotation: q.annotation.get(), comments: q.comments.all(), reactions: q.reactions.all(), reads: q.reads.all() };
        },
        async (db) => {
          const q = forRewrite(db, scope.apiKeyId, organizationId, annotationId);
          const [annotation] = await q.annotation;
          return { annotation, comments: await q.comments, reactions: await q.reactions, reads: await q.reads };
        },
      ),

    /** Writes a thread's rewrite (threadForRewrite's rows with users replaced) in one step. */
    rewriteThread: (scope: TenantScope, organizationId: string, annotationId: string, rewrite: ThreadRewrite) =>
      engine.write(async (db) => {
        const apiKeyId = scope.apiKeyId;
        for (const { id, change } of rewrite.comments)
          await db
            .update(cm)
            .set(change)
            .where(commentWhere(apiKeyId, organizationId, annotationId, id));
        if (rewrite.reactions) {
          await db.delete(rx).where(ofThread(rx, apiKeyId, organizationId, annotationId));
          // in the order given, which is their creation order from now on
          const rows = rewrite.reactions.map((r) => ({ ...r, apiKeyId }));
          for (let i = 0; i < rows.length; i += SLICE) await db.insert(rx).values(rows.slice(i, i + SLICE));
        }
        if (rewrite.reads) {
          await db.delete(rd).where(ofThread(rd, apiKeyId, organizationId, annotationId));
          const rows = [...rewrite.reads].map(([userId, readAt]) => ({ apiKeyId, organizationId, annotationId, userId, readAt }));
          for (let i = 0; i < rows.length; i += SLICE) await db.insert(rd).values(rows.slice(i, i + SLICE));
        }
        if (rewrite.annotation)
          await db
            .update(a)
            .set(rewrite.annotation)
            .where(annotationWhere(apiKeyId, organizationId, annotationId));
      }),
  };
}

export type CommentsRepo = ReturnType<typeof commentsRepo>;
