import { randomInt } from 'node:crypto';
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { annotationFilters, annotationInput, annotationsAddInput, annotationsGetInput, annotationsUpdateInput, commentInput } from '../../shared/schemas/comments.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { compiledRows, inJsonList, listValues, placeholderList, preparedFor, rowInserter } from '../db/prepared.ts';
import { commentAnnotations, commentReads, comments, documents as documentRows, reactions, type CommentExtra, type StoredUser } from '../db/schema.ts';
import { alreadyExists, ApiError, failedPrecondition, invalid, notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { createAccessResolverIn } from './access.ts';
import { recordActivityIn } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { findDocumentIn, insertDocumentIn } from './documents.ts';
import { commentPlainText, recordJudgment, statusDecision, threadTexts } from './memory.ts';
import { insertNotificationIn } from './notifications.ts';
import { ensureOrganizationIn } from './organizations.ts';
import { describeReaction } from './reactions.ts';
import type { ApiKeyRow } from './types.ts';
import { ROOT as ROOT_FOLDER } from './folders.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

type AnnotationRow = typeof commentAnnotations.$inferSelect;
type CommentRow = typeof comments.$inferSelect;
type CommentInput = z.output<typeof commentInput>;
type Outcomes = Record<string, { success: boolean; message: string }>;

const DEFAULT_STATUS = { id: 'OPEN', name: 'Open', type: 'default' };
export const userOf = (u: { userId: string; name?: string | undefined; email?: string | undefined }): StoredUser =>
  Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as StoredUser;
export const label = (u: StoredUser) => (typeof u.name === 'string' && u.name) || u.userId;

/** The hosted comment fields kept as given (CommentExtra) that `data` names, over `base`; null when none is set. */
export function commentExtra(data: Partial<Record<keyof CommentExtra, unknown>>, base: CommentExtra | null = null): CommentExtra | null {
  const extra: Record<string, unknown> = { ...base };
  for (const key of EXTRA_KEYS) {
    const value = data[key];
    if (value !== undefined) extra[key] = key === 'to' ? (value as CommentInput['from'][]).map(userOf) : value;
  }
  return Object.keys(extra).length > 0 ? (extra as CommentExtra) : null;
}
const EXTRA_KEYS = ['status', 'isDraft', 'to', 'attachments', 'recorders', 'customList', 'agent', 'isCommentResolverUsed', 'isCommentTextAvailable'] as const satisfies ReadonlyArray<keyof CommentExtra>;

/**
 * When a comment was written and last edited: as given (an import of older comments), else now; given only
 * lastUpdated, it was written then at the latest.
 */
function commentTimes(item: CommentInput, now: number): { createdAt: number; updatedAt: number } {
  const createdAt = item.createdAt ?? Math.min(now, item.lastUpdated ?? now);
  return { createdAt, updatedAt: item.lastUpdated ?? createdAt };
}

export function mentionedIds(contacts: CommentInput['taggedUserContacts']): string[] {
  return [...new Set((contacts ?? []).map((c) => c.userId ?? c.contact?.userId).filter((v): v is string => !!v))];
}

const annotationQueries = preparedFor((db) => {
  const p = sql.placeholder;
  return {
    byId: db
      .select()
      .from(commentAnnotations)
      .where(and(eq(commentAnnotations.apiKeyId, p('apiKeyId')), eq(commentAnnotations.organizationId, p('organizationId')), eq(commentAnnotations.id, p('annotationId'))))
      .prepare(),
    commentTaken: db
      .select({ id: comments.id })
      .from(comments)
      .where(and(eq(comments.apiKeyId, p('apiKeyId')), eq(comments.organizationId, p('organizationId')), eq(comments.annotationId, p('annotationId')), eq(comments.id, p('id'))))
      .prepare(),
  };
});

export function findAnnotation(tx: Db, apiKeyId: string, organizationId: string, annotationId: string) {
  return annotationQueries(tx).byId.get({ apiKeyId, organizationId, annotationId });
}

export function requireAnnotation(tx: Db, apiKeyId: string, organizationId: string, annotationId: string) {
  const row = findAnnotation(tx, apiKeyId, organizationId, annotationId);
  if (!row) throw notFound('Annotation not found.');
  return row;
}

/** May this user see the annotation: everyone with document access for public ones; author and named users for restricted. */
function visibleTo(row: AnnotationRow, userId: string): boolean {
  return row.visibility === 'public' || row.createdByUserId === userId || (row.visibleToUserIds ?? []).includes(userId);
}

function commentTaken(tx: Db, apiKeyId: string, organizationId: string, annotationId: string, id: number): boolean {
  return !!annotationQueries(tx).commentTaken.get({ apiKeyId, organizationId, annotationId, id });
}

function newCommentId(tx: Db, apiKeyId: string, organizationId: string, annotationId: string): number {
  for (;;) {
    const id = randomInt(100_000, 1_000_000);
    if (!commentTaken(tx, apiKeyId, organizationId, annotationId, id)) return id;
  }
}

export interface WriteContext {
  app: AppContext;
  tx: Db;
  apiKey: ApiKeyRow;
  organizationId: string;
  annotation: AnnotationRow;
  mails: { count: number };
}

/**
 * Inserts comments of one annotation: each records a `comment.add` activity and notifies the users it
 * mentions (those who can see the annotation), and marks the annotation read for its author.
 */
export function insertComments(w: WriteContext, items: CommentInput[], options: { newThread?: boolean } = {}): number[] {
  const { tx, apiKey, organizationId, annotation } = w;
  const ids: number[] = [];
  for (const item of items) {
    if (item.commentId !== undefined && commentTaken(tx, apiKey.id, organizationId, annotation.id, item.commentId)) throw alreadyExists(`Comment already exists: ${item.commentId}.`);
    const id = item.commentId ?? newCommentId(tx, apiKey.id, organizationId, annotation.id);
    const now = Date.now();
    const { createdAt, updatedAt } = commentTimes(item, now);
    const mentioned = mentionedIds(item.taggedUserContacts);
    const from = userOf(item.from);
    insertComment(tx, {
      apiKeyId: apiKey.id,
      organizationId,
      annotationId: annotation.id,
      id,
      fromUser: from,
      fromUserId: from.userId,
      text: item.commentText ?? null,
      html: item.commentHtml ?? null,
      taggedUserContacts: item.taggedUserContacts ?? null,
      mentionedUserIds: mentioned,
      context: item.context ?? null,
      extra: commentExtra(item),
      createdAt,
      updatedAt,
    });
    ids.push(id);
    markRead(tx, apiKey.id, organizationId, annotation.id, from.userId, now);
    // A new thread is reported once, as comment_annotation.add, by the caller.
    if (!options.newThread) emitCommentEvent(tx, { apiKeyId: apiKey.id, organizationId, annotationId: annotation.id, type: 'comment.add', actionUser: from, commentId: id });
    if (item.triggerActivities !== false) {
      recordActivityIn(tx, {
        apiKeyId: apiKey.id,
        organizationId,
        documentId: annotation.documentId,
        featureType: 'comment',
        actionType: 'comment.add',
        actionUser: from,
        targetEntityId: annotation.id,
        targetSubEntityId: String(id),
        entityData: { commentText: item.commentText ?? null },
        displayMessageTemplate: '{{actionUser}} added a comment',
        displayMessageTemplateData: { actionUser: label(from) },
      });
    }
    const own = commentPlainText(item.commentText, item.commentHtml) ?? '';
    if (own) {
      const subject = options.newThread && ids.length === 1 ? own : threadTexts(tx, apiKey.id, organizationId, annotation.id).subject;
      recordJudgment(tx, { apiKeyId: apiKey.id, organizationId, documentId: annotation.documentId, decision: 'comment', reviewer: from, subject, reasoning: own, source: 'comment', sourceId: `${annotation.id}/${id}` }, now);
    }
    const recipients = mentioned.filter((u) => u !== from.userId && visibleTo(annotation, u));
    if (item.triggerNotification !== false && recipients.length > 0) {
      const contacts = new Map((item.taggedUserContacts ?? []).map((c) => [c.userId ?? c.contact?.userId, c.contact]));
      const result = insertNotificationIn(w.app, tx, apiKey, {
        organizationId,
        documentId: annotation.documentId,
        actionUser: item.from,
        notificationSource: 'comment',
        notificationSourceData: { annotationId: annotation.id, commentId: id },
        displayHeadlineMessageTemplate: '{actionUser} mentioned you in a comment',
        displayHeadlineMessageTemplateData: { actionUser: from },
        displayBodyMessage: item.commentText ?? '',
        notifyAll: false,
        verifyUserPermissions: true,
        notifyUsers: recipients.map((userId) => ({ userId, name: contacts.get(userId)?.name, email: contacts.get(userId)?.email })),
        locationId: annotation.locationId ?? undefined,
      });
      w.mails.count += result.mails;
    }
  }
  return ids;
}

// compiled once per connection (prepared.ts): drizzle built each of these on every comment
const insertComment = rowInserter(comments);
const insertAnnotationRow = rowInserter(commentAnnotations);
const upsertRead = rowInserter(commentReads, { upsertOn: [commentReads.apiKeyId, commentReads.organizationId, commentReads.annotationId, commentReads.userId] });

function markRead(tx: Db, apiKeyId: string, organizationId: string, annotationId: string, userId: string, at: number) {
  upsertRead(tx, { apiKeyId, organizationId, annotationId, userId, readAt: at });
}

/**
 * /v2/commentannotations/add. Private (restricted) annotations need the key's `enablePrivateComments`.
 * With `verifyUserPermissions`, an author without access to the document fails the whole call
 * (PERMISSION_DENIED with the per-annotation breakdown in `details`).
 */
export function addAnnotations(app: AppContext, apiKey: ApiKeyRow, input: z.output<typeof annotationsAddInput>) {
  const privateOnes = input.commentAnnotations.filter((a) => a.visibility?.type === 'restricted');
  if (privateOnes.length > 0 && !apiKey.settings.enablePrivateComments) {
    throw failedPrecondition('Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.');
  }
  const given = input.commentAnnotations.map((a) => a.annotationId);
  given.forEach((annotationId, i) => {
    if (annotationId !== undefined && given.indexOf(annotationId) < i) throw invalid(`commentAnnotations[${i}].annotationId repeats an earlier annotation: ${annotationId}.`);
  });
  const mails = { count: 0 };
  const out = transaction(app.db, (tx) => {
    ensureOrganizationIn(tx, apiKey.id, input.organizationId, input.createOrganization ?? false);
    if (!findDocumentIn(tx, apiKey.id, input.organizationId, input.documentId)) {
      if (!input.createDocument) throw notFound(`Document does not exist: ${input.documentId}. Pass createDocument: true to create it.`);
      insertDocumentIn(tx, apiKey, input.organizationId, { documentId: input.documentId });
    }
    if (input.verifyUserPermissions) {
      const access = createAccessResolverIn(tx, apiKey.id, input.organizationId);
      const denied = input.commentAnnotations.map((a, i) => ({ index: i, authors: a.commentData.map((c) => c.from.userId).filter((u) => !access.document(u, input.documentId).access) }));
      if (denied.some((d) => d.authors.length > 0)) {
        throw new ApiError('PERMISSION_DENIED', 'Some comment authors have no access to the document.', denied.filter((d) => d.authors.length > 0).map((d) => ({ annotationIndex: d.index, usersWithoutAccess: d.authors })));
      }
    }
    const result: Record<string, { success: boolean; annotationId: string; commentIds: number[]; message: string }> = keyed();
    for (const item of input.commentAnnotations) {
      const annotation = insertAnnotation(tx, apiKey.id, input.organizationId, input.documentId, item);
      if (!annotation) {
        result[item.annotationId as string] = { success: false, annotationId: item.annotationId as string, commentIds: [], message: 'Annotation already exists.' };
        continue;
      }
      const commentIds = insertComments({ app, tx, apiKey, organizationId: input.organizationId, annotation, mails }, item.commentData, { newThread: true });
      emitCommentEvent(tx, { apiKeyId: apiKey.id, organizationId: input.organizationId, annotationId: annotation.id, type: 'comment_annotation.add', actionUser: userOf(item.commentData[0]?.from ?? { userId: annotation.createdByUserId }), ...(commentIds[0] === undefined ? {} : { commentId: commentIds[0] }) });
      result[annotation.id] = { success: true, annotationId: annotation.id, commentIds, message: 'Added Successfully' };
    }
    return result;
  });
  if (mails.count > 0) app.mail.flush();
  return out;
}

function insertAnnotation(tx: Db, apiKeyId: string, organizationId: string, documentId: string, item: z.output<typeof annotationInput>): AnnotationRow | null {
  const id = item.annotationId ?? randomAlphanumeric(20);
  if (item.annotationId && findAnnotation(tx, apiKeyId, organizationId, id)) return null;
  const status = item.status ?? DEFAULT_STATUS;
  // the thread's times: its first comment's creation and its latest edit (as given when older comments are imported)
  const now = Date.now();
  const times = item.commentData.map((c) => commentTimes(c, now));
  const row: AnnotationRow = {
    apiKeyId,
    organizationId,
    id,
    documentId,
    locationId: item.location?.id ?? null,
    location: item.location ?? null,
    targetElement: item.targetElement ?? null,
    status,
    statusId: status.id,
    priority: item.priority ?? null,
    assignedTo: item.assignedTo ? userOf(item.assignedTo) : null,
    context: item.context ?? null,
    visibility: item.visibility?.type ?? 'public',
    visibleToUserIds: item.visibility?.userIds ?? null,
    commentType: item.commentType ?? null,
    suggestion: item.suggestion ?? null,
    createdByUserId: item.commentData[0]?.from.userId as string,
    resolvedByUserId: null,
    createdAt: times[0]?.createdAt ?? now,
    updatedAt: Math.max(...times.map((t) => t.updatedAt)),
  };
  insertAnnotationRow(tx, row);
  return row;
}

/**
 * A comment record as the hosted service gives it (reference §3.9); the kept fields a comment was not given read
 * as the hosted defaults (status `added`, not a draft, empty lists), the optional ones only when given.
 */
function describeComment(row: CommentRow, reactionRows: Array<typeof reactions.$inferSelect>) {
  const extra = row.extra;
  return {
    commentId: row.id,
    type: 'text',
    status: extra?.status ?? 'added',
    isDraft: extra?.isDraft ?? false,
    commentText: row.text,
    commentHtml: row.html,
    from: row.fromUser,
    to: extra?.to ?? [],
    taggedUserContacts: row.taggedUserContacts ?? [],
    mentionedUserIds: row.mentionedUserIds,
    attachments: extra?.attachments ?? [],
    recorders: extra?.recorders ?? [],
    customList: extra?.customList ?? [],
    ...(extra?.agent === undefined ? {} : { agent: extra.agent }),
    ...(extra?.isCommentResolverUsed === undefined ? {} : { isCommentResolverUsed: extra.isCommentResolverUsed }),
    ...(extra?.isCommentTextAvailable === undefined ? {} : { isCommentTextAvailable: extra.isCommentTextAvailable }),
    context: row.context,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
    reactionAnnotationIds: reactionRows.map((r) => r.id),
    reactionAnnotations: reactionRows.map(describeReaction),
  };
}

/** The comments of some annotations (and, with `+ids`, only some comment ids), in creation order. */
const commentRows = compiledRows(comments, (db, shape: 'annotations' | 'annotations+ids', columns) => {
  const conditions = [eq(comments.apiKeyId, sql.placeholder('apiKeyId')), eq(comments.organizationId, sql.placeholder('organizationId')), inJsonList(comments.annotationId, 'annotationIds')];
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
    .where(and(eq(reactions.apiKeyId, sql.placeholder('apiKeyId')), eq(reactions.organizationId, sql.placeholder('organizationId')), inJsonList(reactions.annotationId, 'annotationIds')))
    .orderBy(asc(reactions.createdAt), sql`rowid`),
);

/** Comments (with their reactions) of the given annotations, in creation order. */
export function commentsOf(db: Db, apiKeyId: string, organizationId: string, annotationIds: string[], commentIds?: number[]) {
  const byAnnotation = new Map<string, ReturnType<typeof describeComment>[]>();
  if (annotationIds.length === 0) return byAnnotation;
  const values = { apiKeyId, organizationId, annotationIds: JSON.stringify(annotationIds), commentIds: commentIds && JSON.stringify(commentIds) };
  const rows = commentRows(db, commentIds ? 'annotations+ids' : 'annotations', values);
  // each comment's reactions, in creation order, by annotation and comment id
  const reactionsOf = new Map<string, Array<typeof reactions.$inferSelect>>();
  for (const reaction of reactionRows(db, 'annotations', values)) {
    const key = `${reaction.commentId}\u0000${reaction.annotationId}`;
    const list = reactionsOf.get(key);
    if (list) list.push(reaction);
    else reactionsOf.set(key, [reaction]);
  }
  for (const row of rows) {
    let list = byAnnotation.get(row.annotationId);
    if (!list) byAnnotation.set(row.annotationId, (list = []));
    list.push(describeComment(row, reactionsOf.get(`${row.id}\u0000${row.annotationId}`) ?? []));
  }
  return byAnnotation;
}

export function describeAnnotation(row: AnnotationRow, commentData: ReturnType<typeof describeComment>[]) {
  return {
    annotationId: row.id,
    documentId: row.documentId,
    location: row.location,
    locationId: row.locationId,
    targetElement: row.targetElement,
    status: row.status,
    priority: row.priority,
    assignedTo: row.assignedTo,
    context: row.context,
    visibility: { type: row.visibility, ...(row.visibleToUserIds ? { userIds: row.visibleToUserIds } : {}) },
    commentType: row.commentType,
    ...(row.suggestion === null ? {} : { suggestion: row.suggestion }),
    resolvedByUserId: row.resolvedByUserId,
    from: commentData[0]?.from ?? { userId: row.createdByUserId },
    metadata: { apiKey: row.apiKeyId, documentId: row.documentId, organizationId: row.organizationId },
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
    comments: commentData,
  };
}

/** The filters of an annotations page: the order, a cursor, how many document ids, and which other filters. */
type AnnotationShape = `${'<' | '>'}${'' | '+after'}:${number}:${'' | '+ids'}${'' | '+locations'}${'' | '+statuses'}${'' | '+authors'}${'' | '+mentions'}${'' | '+viewer'}${'' | '+resolver'}${'' | '+folder' | '+rootfolder'}${'' | '+ca'}${'' | '+cb'}${'' | '+ua'}${'' | '+ub'}`;

/**
 * The annotations page of one filter shape, compiled once. Document ids get one placeholder each (a single one
 * reads the document index in order, as `=` does); the other lists, which no index leads with, are JSON arrays.
 */
const annotationPage = compiledRows(commentAnnotations, (db, shape: AnnotationShape, columns) => {
  const a = commentAnnotations;
  const [head, documents, flags] = shape.split(':') as [string, string, string];
  const descending = head.startsWith('<');
  const p = sql.placeholder;
  const conditions: (SQL | undefined)[] = [eq(a.apiKeyId, p('apiKeyId')), eq(a.organizationId, p('organizationId'))];
  if (head.includes('+after')) conditions.push(keysetAfter(a.createdAt, a.id, [p('afterCreatedAt'), p('afterId')], descending));
  if (documents !== '0') conditions.push(inArray(a.documentId, placeholderList('document', Number(documents))));
  if (flags.includes('+ids')) conditions.push(inJsonList(a.id, 'annotationIds'));
  if (flags.includes('+locations')) conditions.push(inJsonList(a.locationId, 'locationIds'));
  if (flags.includes('+statuses')) conditions.push(inJsonList(a.statusId, 'statusIds'));
  // by any author of one of its comments
  const ofAnnotation = sql`${comments.apiKeyId} = ${a.apiKeyId} and ${comments.organizationId} = ${a.organizationId} and ${comments.annotationId} = ${a.id}`;
  if (flags.includes('+authors')) conditions.push(sql`exists (select 1 from ${comments} where ${ofAnnotation} and ${inJsonList(comments.fromUserId, 'userIds')})`);
  // mentioning one of the users in one of its comments
  if (flags.includes('+mentions')) {
    conditions.push(sql`exists (select 1 from ${comments}, json_each(${comments.mentionedUserIds}) where ${ofAnnotation} and json_each.value in (select value from json_each(${p('mentionedUserIds')})))`);
  }
  if (flags.includes('+viewer')) {
    conditions.push(or(eq(a.visibility, 'public'), eq(a.createdByUserId, p('userId')), sql`exists (select 1 from json_each(${a.visibleToUserIds}) where json_each.value = ${p('userId')})`));
  }
  if (flags.includes('+resolver')) conditions.push(eq(a.resolvedByUserId, p('resolvedBy')));
  // on a document registered in the folder (an annotation's document need not be registered: then in none)
  if (flags.includes('folder')) {
    const d = documentRows;
    const inFolder = flags.includes('+rootfolder') ? isNull(d.folderId) : eq(d.folderId, p('folderId'));
    conditions.push(sql`exists (select 1 from ${d} where ${d.apiKeyId} = ${a.apiKeyId} and ${d.organizationId} = ${a.organizationId} and ${d.id} = ${a.documentId} and ${inFolder})`);
  }
  if (flags.includes('+ca')) conditions.push(gt(a.createdAt, p('createdAfter')));
  if (flags.includes('+cb')) conditions.push(lt(a.createdAt, p('createdBefore')));
  if (flags.includes('+ua')) conditions.push(gt(a.updatedAt, p('updatedAfter')));
  if (flags.includes('+ub')) conditions.push(lt(a.updatedAt, p('updatedBefore')));
  const direction = descending ? desc : asc;
  return db
    .select(columns)
    .from(a)
    .where(and(...conditions))
    .orderBy(direction(a.createdAt), direction(a.id))
    .limit(p('limit'));
});

/** What selects annotations (get's and update's filters), the order, and for a page the reader. */
type AnnotationSelection = Pick<z.output<typeof annotationsGetInput>, 'organizationId' | keyof typeof annotationFilters | 'order'> & { userId?: string | undefined };

/** The annotations the filters select, in `order` of (createdAt, id), after `cursor`, at most `limit`. */
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
    folderId: input.folderId,
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
    has(input.folderId, input.folderId === ROOT_FOLDER ? '+rootfolder' : '+folder'),
    has(input.createdAfter, '+ca'),
    has(input.createdBefore, '+cb'),
    has(input.updatedAfter, '+ua'),
    has(input.updatedBefore, '+ub'),
  ].join('') as AnnotationShape;
  return annotationPage(db, shape, values);
}

/** /v2/commentannotations/get: every filter combined; newest first unless asc; keyset on (createdAt, id). */
export function getAnnotations(app: AppContext, apiKeyId: string, input: z.output<typeof annotationsGetInput>) {
  const { pageToken, pageSize, ...filters } = input;
  const scope = { op: 'commentannotations/get', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, pageToken, ['number', 'string']);
  const rows = selectAnnotations(app.db, apiKeyId, input, pageSize + 1, cursor);
  const page = paginate(rows, pageSize, (row) => [row.createdAt, row.id], app.pageTokens, scope);
  const data = commentsOf(app.db, apiKeyId, input.organizationId, page.items.map((r) => r.id));
  return { items: page.items.map((row) => describeAnnotation(row, data.get(row.id) ?? [])), pageToken: page.pageToken };
}

/** An annotations page grouped by document (`groupByDocumentId`), documents in the order the page meets them. */
export function groupByDocument<T extends { documentId: string }>(items: T[]): Record<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    let list = groups.get(item.documentId);
    if (!list) groups.set(item.documentId, (list = []));
    list.push(item);
  }
  return Object.fromEntries(groups);
}

/** How many annotations one update may change; wider filters are refused (the call is one transaction). */
export const ANNOTATION_UPDATE_LIMIT = 1000;

/**
 * /v2/commentannotations/update: the annotations the filters select (annotationIds among them; an id selected by
 * none answers `Annotation not found.`) get `updatedData` (status, priority, assignment, location, context,
 * visibility, resolution) and `updateUsers` (one user put in another's place); per annotation.
 */
export function updateAnnotations(app: AppContext, apiKey: ApiKeyRow, input: z.output<typeof annotationsUpdateInput>): Outcomes {
  const data = input.updatedData ?? {};
  const changes = Object.values(data).some((v) => v !== undefined);
  if (input.updatedData !== undefined && !changes && !input.updateUsers) throw invalid('updatedData must change at least one field.');
  if (!changes && !input.updateUsers) throw invalid('updatedData or updateUsers is required.');
  if (data.visibility?.type === 'restricted' && !apiKey.settings.enablePrivateComments) {
    throw failedPrecondition('Private comments are disabled for this API key: enable enablePrivateComments with /v2/workspace/apikeyconfig/update.');
  }
  const replacements = new Map<string, StoredUser>();
  for (const [i, { oldUser, newUser }] of (input.updateUsers ?? []).entries()) {
    if (replacements.has(oldUser.userId)) throw invalid(`updateUsers[${i}].oldUser names a user an earlier entry replaces: ${oldUser.userId}.`);
    replacements.set(oldUser.userId, userOf(newUser));
  }
  return transaction(app.db, (tx) => {
    const rows = selectAnnotations(tx, apiKey.id, { ...input, order: 'asc' }, ANNOTATION_UPDATE_LIMIT + 1);
    if (rows.length > ANNOTATION_UPDATE_LIMIT) throw invalid(`The filters select more than ${ANNOTATION_UPDATE_LIMIT} annotations: narrow them (annotationIds, documentIds, …).`);
    const out: Outcomes = keyed();
    for (const annotationId of input.annotationIds ?? []) out[annotationId] = { success: false, message: 'Annotation not found.' };
    for (const row of rows) {
      if (changes) applyUpdatedData(tx, apiKey, input, row, data);
      // after updatedData, so that no replaced user stays behind in what it set
      if (replacements.size > 0) replaceUsers(tx, findAnnotation(tx, apiKey.id, row.organizationId, row.id) ?? row, replacements);
      out[row.id] = { success: true, message: 'Updated Successfully' };
    }
    return out;
  });
}

/**
 * updateUsers on one annotation: each old user's place (author of the thread and of comments, assignee, resolver,
 * a named reader of a private thread, a tagged contact or mention, a comment's recipient, a reaction's author, a
 * read mark) goes to the new user. Replacements apply at once: a → b and b → c move a's to b and b's to c. The
 * notifications, activities and judgments already recorded stay as they were.
 */
function replaceUsers(tx: Db, row: AnnotationRow, replacements: ReadonlyMap<string, StoredUser>) {
  const swap = (userId: string) => replacements.get(userId);
  const key = { apiKeyId: row.apiKeyId, organizationId: row.organizationId, annotationId: row.id };
  let changed = false;
  const set: Partial<AnnotationRow> = {};
  const creator = swap(row.createdByUserId);
  if (creator) set.createdByUserId = creator.userId;
  const assignee = row.assignedTo && swap(row.assignedTo.userId);
  if (assignee) set.assignedTo = assignee;
  const resolver = row.resolvedByUserId && swap(row.resolvedByUserId);
  if (resolver) set.resolvedByUserId = resolver.userId;
  if (row.visibleToUserIds?.some((u) => replacements.has(u))) set.visibleToUserIds = [...new Set(row.visibleToUserIds.map((u) => swap(u)?.userId ?? u))];
  const ofThread = (table: typeof comments | typeof reactions | typeof commentReads) =>
    and(eq(table.apiKeyId, key.apiKeyId), eq(table.organizationId, key.organizationId), eq(table.annotationId, key.annotationId));
  for (const c of tx.select().from(comments).where(ofThread(comments)).all()) {
    const change: Partial<CommentRow> = {};
    const author = swap(c.fromUserId);
    if (author) Object.assign(change, { fromUser: author, fromUserId: author.userId });
    const contacts = c.taggedUserContacts as CommentInput['taggedUserContacts'] | null;
    if (contacts?.some((t) => (t.userId !== undefined && replacements.has(t.userId)) || (t.contact && replacements.has(t.contact.userId)))) {
      const replaced = contacts.map((t) => ({
        ...t,
        ...(t.userId !== undefined && replacements.has(t.userId) ? { userId: swap(t.userId)?.userId } : {}),
        ...(t.contact && replacements.has(t.contact.userId) ? { contact: swap(t.contact.userId) } : {}),
      })) as NonNullable<CommentInput['taggedUserContacts']>;
      Object.assign(change, { taggedUserContacts: replaced, mentionedUserIds: mentionedIds(replaced) });
    }
    if (c.extra?.to?.some((u) => replacements.has(u.userId))) change.extra = { ...c.extra, to: c.extra.to.map((u) => swap(u.userId) ?? u) };
    if (Object.keys(change).length === 0) continue;
    tx.update(comments).set(change).where(and(ofThread(comments), eq(comments.id, c.id))).run();
    changed = true;
  }
  // reactions and read marks are once per user: where the new user has one too, the earlier reaction and the later
  // read mark stay. Rewritten as a whole so that chains (a → b, b → c) and such meetings come out the same.
  const thread = tx.select().from(reactions).where(ofThread(reactions)).orderBy(asc(reactions.createdAt), sql`rowid`).all();
  if (thread.some((r) => replacements.has(r.fromUserId))) {
    const seen = new Set<string>();
    const kept: Array<typeof reactions.$inferSelect> = [];
    for (const r of thread) {
      const user = swap(r.fromUserId) ?? r.fromUser;
      const once = `${r.commentId}\u0000${r.icon}\u0000${user.userId}`;
      if (seen.has(once)) continue;
      seen.add(once);
      kept.push({ ...r, fromUser: user, fromUserId: user.userId });
    }
    tx.delete(reactions).where(ofThread(reactions)).run();
    for (const r of kept) tx.insert(reactions).values(r).run();
    changed = true;
  }
  const marks = tx.select().from(commentReads).where(ofThread(commentReads)).all();
  if (marks.some((m) => replacements.has(m.userId))) {
    const readAt = new Map<string, number>();
    for (const m of marks) {
      const userId = swap(m.userId)?.userId ?? m.userId;
      readAt.set(userId, Math.max(readAt.get(userId) ?? 0, m.readAt));
    }
    tx.delete(commentReads).where(ofThread(commentReads)).run();
    for (const [userId, at] of readAt) markRead(tx, key.apiKeyId, key.organizationId, key.annotationId, userId, at);
    changed = true;
  }
  if (changed || Object.keys(set).length > 0) {
    tx.update(commentAnnotations).set({ ...set, updatedAt: Date.now() }).where(and(eq(commentAnnotations.apiKeyId, key.apiKeyId), eq(commentAnnotations.organizationId, key.organizationId), eq(commentAnnotations.id, key.annotationId))).run();
  }
}

/** updatedData on one annotation, with the events, activities and judgments its changes make. */
function applyUpdatedData(tx: Db, apiKey: ApiKeyRow, input: z.output<typeof annotationsUpdateInput>, row: AnnotationRow, data: NonNullable<z.output<typeof annotationsUpdateInput>['updatedData']>) {
  const annotationId = row.id;
  const set: Partial<AnnotationRow> = { updatedAt: Date.now() };
  if (data.status) Object.assign(set, { status: data.status, statusId: data.status.id });
  if (data.priority !== undefined) set.priority = data.priority;
  if (data.assignedTo !== undefined) set.assignedTo = data.assignedTo ? userOf(data.assignedTo) : null;
  if (data.context) set.context = data.context;
  if (data.location) Object.assign(set, { location: data.location, locationId: data.location.id });
  if (data.visibility) Object.assign(set, { visibility: data.visibility.type, visibleToUserIds: data.visibility.userIds ?? null });
  if (data.resolvedByUserId !== undefined) set.resolvedByUserId = data.resolvedByUserId;
  tx.update(commentAnnotations).set(set).where(and(eq(commentAnnotations.apiKeyId, apiKey.id), eq(commentAnnotations.organizationId, input.organizationId), eq(commentAnnotations.id, annotationId))).run();
  const actionUser = input.actionUser ? userOf(input.actionUser) : { userId: row.createdByUserId };
  const event = (type: WebhookEventType, extra: Record<string, unknown>) => emitCommentEvent(tx, { apiKeyId: apiKey.id, organizationId: input.organizationId, annotationId, type, actionUser, extra });
  if (data.status && data.status.id !== row.statusId) event('comment_annotation.status_change', { oldStatus: row.status, newStatus: data.status });
  const decision = data.status && data.status.id !== row.statusId ? statusDecision(data.status.id) : null;
  if (decision) {
    const texts = threadTexts(tx, apiKey.id, input.organizationId, annotationId);
    recordJudgment(tx, { apiKeyId: apiKey.id, organizationId: input.organizationId, documentId: row.documentId, decision, reviewer: actionUser, subject: texts.subject, reasoning: texts.comment, source: 'annotation_status', sourceId: annotationId });
  }
  if (data.priority !== undefined && JSON.stringify(data.priority) !== JSON.stringify(row.priority)) event('comment_annotation.priority_change', { newPriority: data.priority });
  if (data.assignedTo && data.assignedTo.userId !== row.assignedTo?.userId) event('comment_annotation.assign', { assigned: userOf(data.assignedTo) });
  if (data.status && data.status.id !== row.statusId) {
    recordActivityIn(tx, {
      apiKeyId: apiKey.id,
      organizationId: input.organizationId,
      documentId: row.documentId,
      featureType: 'comment',
      actionType: 'comment.statusChange',
      actionUser,
      targetEntityId: annotationId,
      changes: { status: { from: row.statusId, to: data.status.id } },
      displayMessageTemplate: '{{actionUser}} changed the status to {{status}}',
      displayMessageTemplateData: { actionUser: label(actionUser), status: data.status.name ?? data.status.id },
    });
  }
  if (data.assignedTo && data.assignedTo.userId !== row.assignedTo?.userId) {
    recordActivityIn(tx, {
      apiKeyId: apiKey.id,
      organizationId: input.organizationId,
      documentId: row.documentId,
      featureType: 'comment',
      actionType: 'comment.assign',
      actionUser,
      targetEntityId: annotationId,
      changes: { assignedTo: { from: row.assignedTo?.userId ?? null, to: data.assignedTo.userId } },
      displayMessageTemplate: '{{actionUser}} assigned the comment to {{assignee}}',
      displayMessageTemplateData: { actionUser: label(actionUser), assignee: label(userOf(data.assignedTo)) },
    });
  }
}

export function deleteAnnotations(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationIds: string[]; actionUser?: StoredUser | undefined }): Outcomes {
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const annotationId of new Set(input.annotationIds)) {
      const row = findAnnotation(tx, apiKeyId, input.organizationId, annotationId);
      if (!row) {
        out[annotationId] = { success: false, message: 'Annotation not found.' };
        continue;
      }
      const actionUser = input.actionUser ? userOf(input.actionUser) : { userId: row.createdByUserId };
      emitCommentEvent(tx, { apiKeyId, organizationId: input.organizationId, annotationId, type: 'comment_annotation.delete', actionUser });
      tx.delete(commentAnnotations).where(and(eq(commentAnnotations.apiKeyId, apiKeyId), eq(commentAnnotations.organizationId, input.organizationId), eq(commentAnnotations.id, annotationId))).run();
      recordActivityIn(tx, { apiKeyId, organizationId: input.organizationId, documentId: row.documentId, featureType: 'comment', actionType: 'comment.deleteAnnotation', actionUser, targetEntityId: annotationId, displayMessageTemplate: '{{actionUser}} deleted a comment thread', displayMessageTemplateData: { actionUser: label(actionUser) } });
      out[annotationId] = { success: true, message: 'Deleted Successfully' };
    }
    return out;
  });
}

/**
 * /v2/commentannotations/count/get: per document, the annotations the user can see (`total`) and those with a
 * comment by someone else newer than the user's last read (`unread`).
 */
export function countAnnotations(app: AppContext, apiKeyId: string, input: { organizationId: string; documentIds: string[]; userId: string; statusIds?: string[] | undefined }) {
  const a = commentAnnotations;
  const conditions: SQL[] = [eq(a.apiKeyId, apiKeyId), eq(a.organizationId, input.organizationId), inArray(a.documentId, input.documentIds)];
  if (input.statusIds?.length) conditions.push(inArray(a.statusId, input.statusIds));
  const rows = app.db.select().from(a).where(and(...conditions)).all().filter((row) => visibleTo(row, input.userId));
  const reads = new Map(
    app.db
      .select({ annotationId: commentReads.annotationId, readAt: commentReads.readAt })
      .from(commentReads)
      .where(and(eq(commentReads.apiKeyId, apiKeyId), eq(commentReads.organizationId, input.organizationId), eq(commentReads.userId, input.userId)))
      .all()
      .map((r) => [r.annotationId, r.readAt]),
  );
  const latestByOthers = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 500) {
    const latest = app.db
      .select({ annotationId: comments.annotationId, at: sql<number>`max(${comments.createdAt})` })
      .from(comments)
      .where(and(eq(comments.apiKeyId, apiKeyId), eq(comments.organizationId, input.organizationId), inArray(comments.annotationId, rows.slice(i, i + 500).map((r) => r.id)), sql`${comments.fromUserId} <> ${input.userId}`))
      .groupBy(comments.annotationId)
      .all();
    for (const l of latest) latestByOthers.set(l.annotationId, l.at);
  }
  const out: Record<string, { total: number; unread: number }> = Object.fromEntries(input.documentIds.map((d) => [d, { total: 0, unread: 0 }]));
  for (const row of rows) {
    const counts = out[row.documentId] as { total: number; unread: number };
    counts.total++;
    const latest = latestByOthers.get(row.id);
    if (latest !== undefined && latest > (reads.get(row.id) ?? 0)) counts.unread++;
  }
  return out;
}

export function markAnnotationsRead(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationIds: string[]; userId: string }): Outcomes {
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    const now = Date.now();
    for (const annotationId of new Set(input.annotationIds)) {
      if (!findAnnotation(tx, apiKeyId, input.organizationId, annotationId)) {
        out[annotationId] = { success: false, message: 'Annotation not found.' };
        continue;
      }
      markRead(tx, apiKeyId, input.organizationId, annotationId, input.userId, now);
      out[annotationId] = { success: true, message: 'Marked as read.' };
    }
    return out;
  });
}
