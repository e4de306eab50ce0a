import { currentTime } from '../clock.ts';
import type { Storage } from '../db/repos/index.ts';
import type { StoredUser } from '../db/repos/notifications.ts';
import type { TenantScope } from '../db/scope.ts';
import { notFound } from '../errors.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { recordActivity } from './activities.ts';
import { emitCommentEvent } from './comment-events.ts';
import { describeReaction, label, userOf } from './comment-presenters.ts';
import { requireAnnotation } from './comment-threads.ts';
import { reactionDecision, recordJudgment, threadTexts } from './memory.ts';
import { keyed } from './keyed.ts';

type Outcomes = Record<string, { success: boolean; message: string }>;
type Deps = { storage: Storage };

export { describeReaction };

/** Adds a reaction (one per user, icon and comment: adding it again returns the existing one). */
export async function addReaction(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; annotationId: string; commentId: number; icon: string; from: StoredUser },
) {
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the reaction's unique key settles two adds of it (the
  // second answered the first's), and the comment's foreign key meets its deletion meanwhile.
  return deps.storage.transaction(
    async () => {
      const annotation = await requireAnnotation(deps, scope, input.organizationId, input.annotationId);
      const from = userOf(input.from);
      const { commentExists, existing } = await deps.storage.reactions.lookup(scope, {
        organizationId: input.organizationId,
        annotationId: input.annotationId,
        commentId: input.commentId,
        fromUserId: from.userId,
        icon: input.icon,
      });
      if (!commentExists) throw notFound('Comment not found.');
      if (existing) return { reaction: describeReaction(existing), created: false };
      const row = {
        apiKeyId: scope.apiKeyId,
        organizationId: input.organizationId,
        id: randomAlphanumeric(20),
        annotationId: input.annotationId,
        commentId: input.commentId,
        icon: input.icon,
        fromUser: from,
        fromUserId: from.userId,
        createdAt: currentTime(),
      };
      const there = await deps.storage.reactions.insert(scope, row);
      if (there) return { reaction: describeReaction(there), created: false };
      const decision = reactionDecision(input.icon);
      if (decision) {
        const texts = await threadTexts(deps, scope, input.organizationId, input.annotationId, input.commentId);
        await recordJudgment(
          deps,
          scope,
          {
            organizationId: input.organizationId,
            documentId: annotation.documentId,
            decision,
            reviewer: from,
            subject: texts.subject,
            reasoning: texts.comment,
            source: 'reaction',
            sourceId: row.id,
          },
          row.createdAt,
        );
      }
      await emitCommentEvent(deps, scope, {
        organizationId: input.organizationId,
        annotationId: annotation.id,
        type: 'comment.reaction_add',
        actionUser: from,
        commentId: input.commentId,
        extra: { reaction: describeReaction(row) },
      });
      await recordActivity(deps, scope, {
        organizationId: input.organizationId,
        documentId: annotation.documentId,
        featureType: 'reaction',
        actionType: 'reaction.add',
        actionUser: from,
        targetEntityId: annotation.id,
        targetSubEntityId: String(input.commentId),
        entityData: { icon: input.icon },
        displayMessageTemplate: '{{actionUser}} reacted with {{icon}}',
        displayMessageTemplateData: { actionUser: label(from), icon: input.icon },
      });
      return { reaction: describeReaction(row), created: true };
    },
    { rowLevel: true },
  );
}

/** The reactions of an annotation, or of one of its comments, in creation order; NOT_FOUND for an unknown annotation. */
export async function getReactions(deps: Deps, scope: TenantScope, input: { organizationId: string; annotationId: string; commentId?: number | undefined }) {
  await requireAnnotation(deps, scope, input.organizationId, input.annotationId);
  return (await deps.storage.reactions.list(scope, input.organizationId, input.annotationId, input.commentId)).map(describeReaction);
}

export async function deleteReactions(deps: Deps, scope: TenantScope, input: { organizationId: string; reactionIds: string[] }): Promise<Outcomes> {
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each reaction is read under its key lock, so that of two
  // deletes of it one finds it (one event, one activity) and the other waits, then answers not found. A comment or
  // thread deleted between the read and the delete (its cascade takes no reaction's lock) leaves this delete
  // answering deleted: the order in which this delete came first, as a serial run could order them.
  return deps.storage.transaction(
    async () => {
      await deps.storage.reactions.lock(scope, input.organizationId, input.reactionIds);
      const out: Outcomes = keyed();
      for (const reactionId of new Set(input.reactionIds)) {
        const row = await deps.storage.reactions.find(scope, input.organizationId, reactionId);
        if (!row) {
          out[reactionId] = { success: false, message: 'Reaction not found.' };
          continue;
        }
        // the event describes the thread with the reaction still in it
        await emitCommentEvent(deps, scope, {
          organizationId: input.organizationId,
          annotationId: row.annotationId,
          type: 'comment.reaction_delete',
          actionUser: row.fromUser,
          commentId: row.commentId,
          extra: { reaction: describeReaction(row) },
        });
        await deps.storage.reactions.delete(scope, input.organizationId, reactionId);
        const documentId = (await deps.storage.comments.findAnnotation(scope, input.organizationId, row.annotationId))?.documentId ?? null;
        await recordActivity(deps, scope, {
          organizationId: input.organizationId,
          documentId,
          featureType: 'reaction',
          actionType: 'reaction.delete',
          actionUser: row.fromUser,
          targetEntityId: row.annotationId,
          targetSubEntityId: String(row.commentId),
          entityData: { icon: row.icon },
          displayMessageTemplate: '{{actionUser}} removed a reaction',
          displayMessageTemplateData: { actionUser: label(row.fromUser) },
        });
        out[reactionId] = { success: true, message: 'Reaction deleted.' };
      }
      return out;
    },
    { rowLevel: true },
  );
}
