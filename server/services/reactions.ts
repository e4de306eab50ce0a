import { reactionDecision, recordJudgment, threadTexts } from './memory.ts';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { transaction } from '../db/client.ts';
import { compiledRows, rowInserter } from '../db/prepared.ts';
import { comments, reactions, type StoredUser } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { recordActivityIn } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { findAnnotation, label, requireAnnotation, userOf } from './comments.ts';
import { keyed } from './keyed.ts';

type Outcomes = Record<string, { success: boolean; message: string }>;

export function describeReaction(row: typeof reactions.$inferSelect) {
  return { reactionId: row.id, annotationId: row.annotationId, commentId: row.commentId, icon: row.icon, from: row.fromUser, createdAt: row.createdAt };
}

const insertReaction = rowInserter(reactions);

/** Adds a reaction (one per user, icon and comment: adding it again returns the existing one). */
export function addReaction(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationId: string; commentId: number; icon: string; from: StoredUser }) {
  return transaction(app.db, (tx) => {
    const annotation = requireAnnotation(tx, apiKeyId, input.organizationId, input.annotationId);
    const comment = tx
      .select({ id: comments.id })
      .from(comments)
      .where(and(eq(comments.apiKeyId, apiKeyId), eq(comments.organizationId, input.organizationId), eq(comments.annotationId, input.annotationId), eq(comments.id, input.commentId)))
      .get();
    if (!comment) throw notFound('Comment not found.');
    const from = userOf(input.from);
    const existing = tx
      .select()
      .from(reactions)
      .where(and(eq(reactions.apiKeyId, apiKeyId), eq(reactions.organizationId, input.organizationId), eq(reactions.annotationId, input.annotationId), eq(reactions.commentId, input.commentId), eq(reactions.fromUserId, from.userId), eq(reactions.icon, input.icon)))
      .get();
    if (existing) return { reaction: describeReaction(existing), created: false };
    const row = { apiKeyId, organizationId: input.organizationId, id: randomAlphanumeric(20), annotationId: input.annotationId, commentId: input.commentId, icon: input.icon, fromUser: from, fromUserId: from.userId, createdAt: Date.now() };
    insertReaction(tx, row);
    const decision = reactionDecision(input.icon);
    if (decision) {
      const texts = threadTexts(tx, apiKeyId, input.organizationId, input.annotationId, input.commentId);
      recordJudgment(tx, { apiKeyId, organizationId: input.organizationId, documentId: annotation.documentId, decision, reviewer: from, subject: texts.subject, reasoning: texts.comment, source: 'reaction', sourceId: row.id }, row.createdAt);
    }
    emitCommentEvent(tx, { apiKeyId, organizationId: input.organizationId, annotationId: annotation.id, type: 'comment.reaction_add', actionUser: from, commentId: input.commentId, extra: { reaction: describeReaction(row) } });
    recordActivityIn(tx, { apiKeyId, organizationId: input.organizationId, documentId: annotation.documentId, featureType: 'reaction', actionType: 'reaction.add', actionUser: from, targetEntityId: annotation.id, targetSubEntityId: String(input.commentId), entityData: { icon: input.icon }, displayMessageTemplate: '{{actionUser}} reacted with {{icon}}', displayMessageTemplateData: { actionUser: label(from), icon: input.icon } });
    return { reaction: describeReaction(row), created: true };
  });
}

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

export function getReactions(app: AppContext, apiKeyId: string, input: { organizationId: string; annotationId: string; commentId?: number | undefined }) {
  requireAnnotation(app.db, apiKeyId, input.organizationId, input.annotationId);
  return reactionsOf(app.db, input.commentId === undefined ? 'annotation' : 'comment', { ...input, apiKeyId }).map(describeReaction);
}

export function deleteReactions(app: AppContext, apiKeyId: string, input: { organizationId: string; reactionIds: string[] }): Outcomes {
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const reactionId of new Set(input.reactionIds)) {
      const where = and(eq(reactions.apiKeyId, apiKeyId), eq(reactions.organizationId, input.organizationId), eq(reactions.id, reactionId));
      const row = tx.select().from(reactions).where(where).get();
      if (!row) {
        out[reactionId] = { success: false, message: 'Reaction not found.' };
        continue;
      }
      emitCommentEvent(tx, { apiKeyId, organizationId: input.organizationId, annotationId: row.annotationId, type: 'comment.reaction_delete', actionUser: row.fromUser, commentId: row.commentId, extra: { reaction: describeReaction(row) } });
      tx.delete(reactions).where(where).run();
      const documentId = findAnnotation(tx, apiKeyId, input.organizationId, row.annotationId)?.documentId ?? null;
      recordActivityIn(tx, { apiKeyId, organizationId: input.organizationId, documentId, featureType: 'reaction', actionType: 'reaction.delete', actionUser: row.fromUser, targetEntityId: row.annotationId, targetSubEntityId: String(row.commentId), entityData: { icon: row.icon }, displayMessageTemplate: '{{actionUser}} removed a reaction', displayMessageTemplateData: { actionUser: label(row.fromUser) } });
      out[reactionId] = { success: true, message: 'Reaction deleted.' };
    }
    return out;
  });
}

