import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { Db } from '../db/client.ts';
import type { StoredUser } from '../db/schema.ts';
import { emitEvent, subscribers, type DomainEvent } from '../webhooks/outbox.ts';
import { commentsOf, describeAnnotation, findAnnotation } from './comments.ts';
import { userChannelsIn } from './notifications.ts';
import { keyed } from './keyed.ts';

/** reference.md 4.6: the basic service's comment `actionType` for each event. */
const BASIC_ACTION: Partial<Record<WebhookEventType, string>> = {
  'comment_annotation.add': 'newlyAdded',
  'comment_annotation.assign': 'assigned',
  'comment_annotation.status_change': 'statusChanged',
  'comment_annotation.priority_change': 'priorityChanged',
  'comment_annotation.delete': 'deleted',
  'comment.add': 'added',
  'comment.update': 'updated',
  'comment.delete': 'deleted',
  'comment.reaction_add': 'reactionAdded',
  'comment.reaction_delete': 'reactionDeleted',
};

/** `status_change` → `statusChange`: the advanced `actionType` is the event's verb (reference.md 4.2 sample: `add`). */
const advancedAction = (type: WebhookEventType) => (type.split('.').pop() ?? type).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

type Channels = { inbox: string; email: string };

/** The notification settings of the users a thread involves, per organization and per the thread's document. */
function participantsConfig(tx: Db, apiKeyId: string, organizationId: string, documentId: string, userIds: string[]) {
  const of = userChannelsIn(tx, apiKeyId, organizationId, documentId, userIds);
  const org: Record<string, Channels> = keyed();
  const doc: Record<string, Channels> = keyed();
  for (const userId of userIds) {
    const { organization, document } = of(userId);
    org[userId] = { inbox: organization.inbox, email: organization.email };
    doc[userId] = { inbox: document.inbox, email: document.email };
  }
  return { usersOrganizationNotificationsConfig: org, usersDocumentNotificationsConfig: doc };
}

/**
 * Writes a comment-family webhook event in the caller's transaction, with the thread as it is at that moment
 * (for a deletion: called just before the rows go, so the receiver still sees what was deleted).
 */
export function emitCommentEvent(
  tx: Db,
  e: {
    apiKeyId: string;
    organizationId: string;
    annotationId: string;
    type: WebhookEventType;
    actionUser: StoredUser;
    commentId?: number;
    extra?: Record<string, unknown>;
  },
) {
  const row = findAnnotation(tx, e.apiKeyId, e.organizationId, e.annotationId);
  if (!row) return;
  // the thread, its participants and their settings are read only for an event some receiver takes
  const who = subscribers(tx, e.apiKeyId, e.type, BASIC_ACTION[e.type] !== undefined, { organizationId: e.organizationId, documentId: row.documentId });
  if (!who.advanced && !who.basic) return;
  const comments = commentsOf(tx, e.apiKeyId, e.organizationId, [row.id]).get(row.id) ?? [];
  const commentAnnotation = describeAnnotation(row, comments);
  const targetComment = e.commentId === undefined ? null : (comments.find((c) => c.commentId === e.commentId) ?? null);
  const participants = new Set<string>([row.createdByUserId]);
  for (const c of comments) {
    participants.add(c.from.userId);
    for (const id of c.mentionedUserIds ?? []) participants.add(id);
  }
  if (row.assignedTo) participants.add(row.assignedTo.userId);
  const configs = participantsConfig(tx, e.apiKeyId, e.organizationId, row.documentId, [...participants]);
  const visibility = row.visibility === 'restricted' ? { visibility: commentAnnotation.visibility } : {};
  const fields = { commentAnnotation, targetComment, ...visibility, ...e.extra };
  const event: DomainEvent = {
    apiKeyId: e.apiKeyId,
    type: e.type,
    organizationId: e.organizationId,
    documentId: row.documentId,
    actionUser: e.actionUser,
    actionType: advancedAction(e.type),
    source: 'comment',
    data: fields,
    top: configs,
    ...(BASIC_ACTION[e.type]
      ? { basic: { actionType: BASIC_ACTION[e.type] as string, notificationSource: 'comment' as const, fields: { ...fields, assigned: row.assignedTo, accessDeniedUsers: [], ...configs } } }
      : {}),
  };
  emitEvent(tx, event, who);
}
