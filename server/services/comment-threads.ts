import { currentTime } from '../clock.ts';
import { randomInt } from 'node:crypto';
import type { z } from 'zod';
import type { commentInput, commentsUpdateInput } from '../../shared/schemas/comments.ts';
import type { AnnotationRow, CommentRow, StoredUser } from '../db/repos/comments.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { recordActivity } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { commentExtra, commentTimes, describeThreads, label, mentionedIds, userOf, visibleTo } from './comment-presenters.ts';
import { keyed } from './keyed.ts';
import { commentPlainText, recordJudgment, threadTexts } from './memory.ts';
import type { MailLimitDeps } from '../mail/limits.ts';
import { insertNotification } from './notifications.ts';
import type { ApiKeyRow } from './types.ts';
import type { Mailer } from '../mail/mailer.ts';

/** The comments of one annotation: /v2/commentannotations/comments/add, get, update and delete. */

type CommentInput = z.output<typeof commentInput>;
type Outcomes = Record<string, { success: boolean; message: string }>;

/** What the comment services use: the storage, and the mailer (mentions may queue e-mail, sent after the commit). */
export type CommentDeps = { storage: Storage; mail: Mailer } & MailLimitDeps;
type Deps = { storage: Storage };

/** The annotation, else NOT_FOUND. */
export async function requireAnnotation(deps: Deps, scope: TenantScope, organizationId: string, annotationId: string): Promise<AnnotationRow> {
  const row = await deps.storage.comments.findAnnotation(scope, organizationId, annotationId);
  if (!row) throw notFound('Annotation not found.');
  return row;
}

/** Where comments are written: inside the caller's unit of work, for one annotation. */
export interface ThreadWrite {
  deps: CommentDeps;
  scope: TenantScope;
  apiKey: ApiKeyRow;
  annotation: AnnotationRow;
  /** E-mails the mentions queued: the caller flushes the mailer after its commit. */
  mails: { count: number };
}

const newCommentId = () => randomInt(100_000, 1_000_000);

/**
 * Inserts comments of one annotation, in the caller's unit of work: each records a `comment.add` activity and
 * notifies the users it mentions (those who can see the annotation), and marks the annotation read for its author.
 */
export async function insertComments(w: ThreadWrite, items: CommentInput[], options: { newThread?: boolean } = {}): Promise<number[]> {
  const { deps, scope, apiKey, annotation } = w;
  const { storage } = deps;
  const organizationId = annotation.organizationId;
  const ids: number[] = [];
  for (const item of items) {
    const now = currentTime();
    const { createdAt, updatedAt } = commentTimes(item, now);
    const mentioned = mentionedIds(item.taggedUserContacts);
    const from = userOf(item.from);
    const id = await storage.comments.insertComment(
      scope,
      {
        organizationId,
        annotationId: annotation.id,
        id: item.commentId,
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
      },
      now,
      newCommentId,
    );
    if (id === undefined) throw alreadyExists(`Comment already exists: ${item.commentId}.`);
    ids.push(id);
    // A new thread is reported once, as comment_annotation.add, by the caller.
    if (!options.newThread)
      await emitCommentEvent(deps, scope, { organizationId, annotationId: annotation.id, type: 'comment.add', actionUser: from, commentId: id });
    if (item.triggerActivities !== false) {
      await recordActivity(deps, scope, {
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
      const subject = options.newThread && ids.length === 1 ? own : (await threadTexts(deps, scope, organizationId, annotation.id)).subject;
      await recordJudgment(
        deps,
        scope,
        {
          organizationId,
          documentId: annotation.documentId,
          decision: 'comment',
          reviewer: from,
          subject,
          reasoning: own,
          source: 'comment',
          sourceId: `${annotation.id}/${id}`,
        },
        now,
      );
    }
    const recipients = mentioned.filter((u) => u !== from.userId && visibleTo(annotation, u));
    if (item.triggerNotification !== false && recipients.length > 0 && mentionNotificationsOn(apiKey)) {
      const contacts = new Map((item.taggedUserContacts ?? []).map((c) => [c.userId ?? c.contact?.userId, c.contact]));
      const result = await insertNotification(deps, scope, apiKey, {
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

export async function addComments(
  deps: CommentDeps,
  scope: TenantScope,
  apiKey: ApiKeyRow,
  input: { organizationId: string; annotationId: string; commentData: CommentInput[] },
): Promise<number[]> {
  const mails = { count: 0 };
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): a comment's id is taken by its insert's conflict clause,
  // the annotation's foreign key meets its deletion meanwhile, and the thread's last update only moves forward.
  const ids = await deps.storage.transaction(
    async () => {
      const annotation = await requireAnnotation(deps, scope, input.organizationId, input.annotationId);
      const ids = await insertComments({ deps, scope, apiKey, annotation, mails }, input.commentData);
      await deps.storage.comments.touchAnnotation(scope, input.organizationId, input.annotationId, currentTime());
      return ids;
    },
    // a mention's notification is added after the comment's insert has locked the annotation (docs/storage.md, "Fences")
    { rowLevel: true, addsToDocumentsOf: { scope, organizationId: input.organizationId } },
  );
  if (mails.count > 0) deps.mail.flush();
  return ids;
}

export async function getComments(deps: Deps, scope: TenantScope, input: { organizationId: string; annotationId: string; commentIds?: number[] | undefined }) {
  const found = await deps.storage.comments.annotationThread(scope, input.organizationId, input.annotationId, input.commentIds);
  if (!found) throw notFound('Annotation not found.');
  return describeThreads(found.thread).get(input.annotationId) ?? [];
}

/**
 * The comments an update or a delete names, each read under its key lock (row level on PostgreSQL, docs/storage.md
 * "Invariants": a second writer of a comment waits for the first's commit, then reads what it left): the thread
 * (NOT_FOUND when there is none), the comments found by id, and the answers so far, "Not found" for the others.
 */
async function commentsToWrite(deps: Deps, scope: TenantScope, input: { organizationId: string; annotationId: string; commentIds: readonly number[] }) {
  const annotation = await requireAnnotation(deps, scope, input.organizationId, input.annotationId);
  await deps.storage.comments.lockComments(scope, input.organizationId, input.annotationId, input.commentIds);
  const out: Outcomes = keyed();
  const found = new Map<number, CommentRow>();
  for (const commentId of new Set(input.commentIds)) {
    const row = await deps.storage.comments.findComment(scope, input.organizationId, input.annotationId, commentId);
    if (row) found.set(commentId, row);
    else out[commentId] = { success: false, message: 'Not found' };
  }
  return { annotation, out, found };
}

export async function updateComments(deps: Deps, scope: TenantScope, input: z.output<typeof commentsUpdateInput>): Promise<Outcomes> {
  const data = input.updatedData;
  if (Object.values(data).every((v) => v === undefined)) throw invalid('updatedData must change at least one field.');
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each comment is read under its key lock, so that an
  // update merges its fields over what the update before it wrote, never over an older read of the comment.
  return storage.transaction(
    async () => {
      const { annotation, out, found } = await commentsToWrite(deps, scope, input);
      for (const [commentId, row] of found) {
        await storage.comments.updateComment(scope, input.organizationId, input.annotationId, commentId, {
          text: data.commentText ?? row.text,
          html: data.commentHtml ?? row.html,
          taggedUserContacts: data.taggedUserContacts ?? row.taggedUserContacts,
          mentionedUserIds: data.taggedUserContacts ? mentionedIds(data.taggedUserContacts) : row.mentionedUserIds,
          context: data.context ?? row.context,
          // an edited text makes the comment `updated`, as the hosted SDK marks it, unless a status is given
          extra: commentExtra(
            data.status === undefined && (data.commentText !== undefined || data.commentHtml !== undefined) ? { ...data, status: 'updated' } : data,
            row.extra,
          ),
          updatedAt: currentTime(),
        });
        const actionUser = input.actionUser ?? row.fromUser;
        await emitCommentEvent(deps, scope, {
          organizationId: input.organizationId,
          annotationId: annotation.id,
          type: 'comment.update',
          actionUser,
          commentId,
        });
        await recordActivity(deps, scope, {
          organizationId: input.organizationId,
          documentId: annotation.documentId,
          featureType: 'comment',
          actionType: 'comment.update',
          actionUser,
          targetEntityId: annotation.id,
          targetSubEntityId: String(commentId),
          changes: data.commentText !== undefined ? { commentText: { from: row.text, to: data.commentText } } : null,
          displayMessageTemplate: '{{actionUser}} edited a comment',
          displayMessageTemplateData: { actionUser: label(actionUser) },
        });
        out[commentId] = { success: true, message: 'Updated successfully' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

export async function deleteComments(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; annotationId: string; commentIds: number[]; actionUser?: StoredUser | undefined },
): Promise<Outcomes> {
  const { storage } = deps;
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each comment is read under its key lock, so that of two
  // deletes of it one finds it (one event, one activity) and the other waits, then answers not found.
  return storage.transaction(
    async () => {
      const { annotation, out, found } = await commentsToWrite(deps, scope, input);
      for (const [commentId, row] of found) {
        const actionUser = input.actionUser ?? row.fromUser;
        await emitCommentEvent(deps, scope, {
          organizationId: input.organizationId,
          annotationId: annotation.id,
          type: 'comment.delete',
          actionUser,
          commentId,
        });
        await storage.comments.deleteComment(scope, input.organizationId, input.annotationId, commentId);
        await recordActivity(deps, scope, {
          organizationId: input.organizationId,
          documentId: annotation.documentId,
          featureType: 'comment',
          actionType: 'comment.delete',
          actionUser,
          targetEntityId: annotation.id,
          targetSubEntityId: String(commentId),
          displayMessageTemplate: '{{actionUser}} deleted a comment',
          displayMessageTemplateData: { actionUser: label(actionUser) },
        });
        out[commentId] = { success: true, message: 'Deleted successfully' };
      }
      return out;
    },
    { rowLevel: true },
  );
}

/**
 * Whether the key's notification triggers (/v2/workspace/notificationconfig) let Hearth make a comment's @mention
 * notification, the one kind it makes by itself: `comment` (every notification about comments) and `mention` must
 * not be off. A key that never set triggers keeps them on; `useNotificationService` does not gate it (docs/decisions.md).
 */
function mentionNotificationsOn(apiKey: ApiKeyRow): boolean {
  const triggers = apiKey.settings.notificationTriggers;
  return triggers?.comment !== false && triggers?.mention !== false;
}
