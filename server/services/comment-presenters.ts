// Comment threads as the API shows them (reference §3.9), and the small rules on users and texts the comment
// services share. Nothing here reads or writes: it shapes rows the repository (db/repos/comments.ts) answered.
import type { z } from 'zod';
import type { commentInput } from '../../shared/schemas/comments.ts';
import type { AnnotationRow, CommentExtra, CommentRow, ReactionRow, StoredUser, ThreadRows } from '../db/repos/comments.ts';

type CommentInput = z.output<typeof commentInput>;

export const userOf = (u: { userId: string; name?: string | undefined; email?: string | undefined }): StoredUser =>
  Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as StoredUser;
export const label = (u: StoredUser) => (typeof u.name === 'string' && u.name) || u.userId;

const EXTRA_KEYS = [
  'status',
  'isDraft',
  'to',
  'attachments',
  'recorders',
  'customList',
  'agent',
  'isCommentResolverUsed',
  'isCommentTextAvailable',
] as const satisfies ReadonlyArray<keyof CommentExtra>;

/** The hosted comment fields kept as given (CommentExtra) that `data` names, over `base`; null when none is set. */
export function commentExtra(data: Partial<Record<keyof CommentExtra, unknown>>, base: CommentExtra | null = null): CommentExtra | null {
  const extra: Record<string, unknown> = { ...base };
  for (const key of EXTRA_KEYS) {
    const value = data[key];
    if (value !== undefined) extra[key] = key === 'to' ? (value as CommentInput['from'][]).map(userOf) : value;
  }
  return Object.keys(extra).length > 0 ? (extra as CommentExtra) : null;
}

/**
 * When a comment was written and last edited: as given (an import of older comments), else now; given only
 * lastUpdated, it was written then at the latest.
 */
export function commentTimes(item: CommentInput, now: number): { createdAt: number; updatedAt: number } {
  const createdAt = item.createdAt ?? Math.min(now, item.lastUpdated ?? now);
  return { createdAt, updatedAt: item.lastUpdated ?? createdAt };
}

export function mentionedIds(contacts: CommentInput['taggedUserContacts']): string[] {
  return [...new Set((contacts ?? []).map((c) => c.userId ?? c.contact?.userId).filter((v): v is string => !!v))];
}

/** May this user see the annotation: everyone with document access for public ones; author and named users for restricted. */
export function visibleTo(row: AnnotationRow, userId: string): boolean {
  return row.visibility === 'public' || row.createdByUserId === userId || (row.visibleToUserIds ?? []).includes(userId);
}

export function describeReaction(row: ReactionRow) {
  return { reactionId: row.id, annotationId: row.annotationId, commentId: row.commentId, icon: row.icon, from: row.fromUser, createdAt: row.createdAt };
}

/**
 * A comment record as the hosted service gives it (reference §3.9); the kept fields a comment was not given read
 * as the hosted defaults (status `added`, not a draft, empty lists), the optional ones only when given.
 */
export function describeComment(row: CommentRow, reactionRows: ReactionRow[]) {
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

export type CommentView = ReturnType<typeof describeComment>;

/** The comments of a thread read (ThreadRows) by annotation, each with its reactions, in creation order. */
export function describeThreads(thread: ThreadRows): Map<string, CommentView[]> {
  const byAnnotation = new Map<string, CommentView[]>();
  if (thread.comments.length === 0) return byAnnotation;
  // each comment's reactions, in creation order, by annotation and comment id
  const reactionsOf = new Map<string, ReactionRow[]>();
  for (const reaction of thread.reactions) {
    const key = `${reaction.commentId}\u0000${reaction.annotationId}`;
    const list = reactionsOf.get(key);
    if (list) list.push(reaction);
    else reactionsOf.set(key, [reaction]);
  }
  for (const row of thread.comments) {
    let list = byAnnotation.get(row.annotationId);
    if (!list) byAnnotation.set(row.annotationId, (list = []));
    list.push(describeComment(row, reactionsOf.get(`${row.id}\u0000${row.annotationId}`) ?? []));
  }
  return byAnnotation;
}

export function describeAnnotation(row: AnnotationRow, commentData: CommentView[]) {
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
