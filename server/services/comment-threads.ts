import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { commentInput, commentsUpdateInput } from '../../shared/schemas/comments.ts';
import type { AppContext } from '../context.ts';
import { transaction } from '../db/client.ts';
import { commentAnnotations, comments, type StoredUser } from '../db/schema.ts';
import { invalid } from '../errors.ts';
import { recordActivityIn } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { commentExtra, commentsOf, insertComments, label, mentionedIds, requireAnnotation } from './comments.ts';
import type { ApiKeyRow } from './types.ts';
import { keyed } from './keyed.ts';

/** The comments of one annotation: /v2/commentannotations/comments/add, get, update and delete. */

type CommentInput = z.output<typeof commentInput>;
type Outcomes = Record<string, { success: boolean; message: string }>;

const commentWhere = (apiKeyId: string, input: { organizationId: string; annotationId: string }, commentId: number) =>
  and(eq(comments.apiKeyId, apiKeyId), eq(comments.organizationId, input.organizationId), eq(comments.annotationId, input.annotationId), eq(comments.id, commentId));

export function addComments(app: AppContext, apiKey: ApiKeyRow, input: { organizationId: string; annotationId: string; commentData: CommentInput[] }): number[] {
  const mails = { count: 0 };
  const ids = transaction(app.db, (tx) => {
    const annotation = requireAnnotation(tx, apiKey.id, input.organizationId, input.annotationId);
    const ids = insertComments({ app, tx, apiKey, organizationId: input.organizationId, annotation, mails }, input.commentData);
    tx.update(commentAnnotations).set({ updatedAt: Date.now() }).where(and(eq(commentAnnotations.apiKeyId, apiKey.id), eq(commentAnnotations.organizationId, input.organizationId), eq(commentAnnotations.id, input.annotationId))).run();
    return ids;
  });
  if (mails.count > 0) app.mail.flush();
  return ids;
}

export function getComments(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationId: string; commentIds?: number[] | undefined }) {
  requireAnnotation(app.db, apiKeyId, input.organizationId, input.annotationId);
  return commentsOf(app.db, apiKeyId, input.organizationId, [input.annotationId], input.commentIds).get(input.annotationId) ?? [];
}

export function updateComments(
  app: AppContext,
  apiKeyId: string,
  input: z.output<typeof commentsUpdateInput>,
): Outcomes {
  const data = input.updatedData;
  if (Object.values(data).every((v) => v === undefined)) throw invalid('updatedData must change at least one field.');
  return transaction(app.db, (tx) => {
    const annotation = requireAnnotation(tx, apiKeyId, input.organizationId, input.annotationId);
    const out: Outcomes = keyed();
    for (const commentId of new Set(input.commentIds)) {
      const where = commentWhere(apiKeyId, input, commentId);
      const row = tx.select().from(comments).where(where).get();
      if (!row) {
        out[commentId] = { success: false, message: 'Not found' };
        continue;
      }
      tx.update(comments)
        .set({
          text: data.commentText ?? row.text,
          html: data.commentHtml ?? row.html,
          taggedUserContacts: data.taggedUserContacts ?? row.taggedUserContacts,
          mentionedUserIds: data.taggedUserContacts ? mentionedIds(data.taggedUserContacts) : row.mentionedUserIds,
          context: data.context ?? row.context,
          // an edited text makes the comment `updated`, as the hosted SDK marks it, unless a status is given
          extra: commentExtra(data.status === undefined && (data.commentText !== undefined || data.commentHtml !== undefined) ? { ...data, status: 'updated' } : data, row.extra),
          updatedAt: Date.now(),
        })
        .where(where)
        .run();
      const actionUser = input.actionUser ?? row.fromUser;
      emitCommentEvent(tx, { apiKeyId, organizationId: input.organizationId, annotationId: annotation.id, type: 'comment.update', actionUser, commentId });
      recordActivityIn(tx, {
        apiKeyId,
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
  });
}

export function deleteComments(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationId: string; commentIds: number[]; actionUser?: StoredUser | undefined }): Outcomes {
  return transaction(app.db, (tx) => {
    const annotation = requireAnnotation(tx, apiKeyId, input.organizationId, input.annotationId);
    const out: Outcomes = keyed();
    for (const commentId of new Set(input.commentIds)) {
      const where = commentWhere(apiKeyId, input, commentId);
      const row = tx.select().from(comments).where(where).get();
      if (!row) {
        out[commentId] = { success: false, message: 'Not found' };
        continue;
      }
      const actionUser = input.actionUser ?? row.fromUser;
      emitCommentEvent(tx, { apiKeyId, organizationId: input.organizationId, annotationId: annotation.id, type: 'comment.delete', actionUser, commentId });
      tx.delete(comments).where(where).run();
      recordActivityIn(tx, { apiKeyId, organizationId: input.organizationId, documentId: annotation.documentId, featureType: 'comment', actionType: 'comment.delete', actionUser, targetEntityId: annotation.id, targetSubEntityId: String(commentId), displayMessageTemplate: '{{actionUser}} deleted a comment', displayMessageTemplateData: { actionUser: label(actionUser) } });
      out[commentId] = { success: true, message: 'Deleted successfully' };
    }
    return out;
  });
}

