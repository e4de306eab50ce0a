// The comment family's webhook events (comment_annotation.* and comment.*): the thread as it is when the change is
// made, its participants and their notification settings, written to the outbox in the change's unit of work.
import type { WebhookEventType } from '../../shared/schemas/webhooks.ts';
import type { AnnotationRow, StoredUser } from '../db/repos/comments.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { emitEvent, subscribers, type DomainEvent } from '../webhooks/outbox.ts';
import { describeAnnotation, describeThreads, type CommentView } from './comment-presenters.ts';
import { keyed } from './keyed.ts';
import { userChannels } from './notifications.ts';

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

/** Whether the basic service knows the event (then receivers of the basic form may take it too). */
const hasBasicForm = (type: WebhookEventType) => BASIC_ACTION[type] !== undefined;

/** `status_change` → `statusChange`: the advanced `actionType` is the event's verb (reference.md 4.2 sample: `add`). */
const advancedAction = (type: WebhookEventType) => (type.split('.').pop() ?? type).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** One change of a thread, as an event tells it. */
export interface CommentEvent {
  organizationId: string;
  annotationId: string;
  type: WebhookEventType;
  actionUser: StoredUser;
  commentId?: number;
  extra?: Record<string, unknown>;
}

type Channels = { inbox: string; email: string };
/** Each user's notification settings, for the organization and for the thread's document (notifications' userChannels). */
type ChannelsOf = (userId: string) => { organization: Channels; document: Channels };

/** The users a thread involves: its author, its comments' authors and the users they mention, its assignee. */
function participantsOf(row: AnnotationRow, comments: CommentView[]): string[] {
  const participants = new Set<string>([row.createdByUserId]);
  for (const c of comments) {
    participants.add(c.from.userId);
    for (const id of c.mentionedUserIds ?? []) participants.add(id);
  }
  if (row.assignedTo) participants.add(row.assignedTo.userId);
  return [...participants];
}

/** The event of a change to the thread `row` (with its comments as they are), for the participants' settings `of`. */
function commentEventOf(row: AnnotationRow, comments: CommentView[], e: CommentEvent, userIds: string[], of: ChannelsOf): DomainEvent {
  const org: Record<string, Channels> = keyed();
  const doc: Record<string, Channels> = keyed();
  for (const userId of userIds) {
    const { organization, document } = of(userId);
    org[userId] = { inbox: organization.inbox, email: organization.email };
    doc[userId] = { inbox: document.inbox, email: document.email };
  }
  const configs = { usersOrganizationNotificationsConfig: org, usersDocumentNotificationsConfig: doc };
  const commentAnnotation = describeAnnotation(row, comments);
  const targetComment = e.commentId === undefined ? null : (comments.find((c) => c.commentId === e.commentId) ?? null);
  const visibility = row.visibility === 'restricted' ? { visibility: commentAnnotation.visibility } : {};
  const fields = { commentAnnotation, targetComment, ...visibility, ...e.extra };
  return {
    type: e.type,
    organizationId: e.organizationId,
    documentId: row.documentId,
    actionUser: e.actionUser,
    actionType: advancedAction(e.type),
    source: 'comment',
    data: fields,
    top: configs,
    ...(BASIC_ACTION[e.type]
      ? {
          basic: {
            actionType: BASIC_ACTION[e.type] as string,
            notificationSource: 'comment' as const,
            fields: { ...fields, assigned: row.assignedTo, accessDeniedUsers: [], ...configs },
          },
        }
      : {}),
  };
}

/**
 * Writes a comment-family webhook event in the caller's unit of work, with the thread as it is at that moment
 * (for a deletion: called just before the rows go, so the receiver still sees what was deleted).
 */
export async function emitCommentEvent(deps: { storage: Storage }, scope: TenantScope, e: CommentEvent) {
  const row = await deps.storage.comments.findAnnotation(scope, e.organizationId, e.annotationId);
  if (!row) return;
  // the thread, its participants and their settings are read only for an event some receiver takes
  const who = await subscribers(deps, scope, e.type, hasBasicForm(e.type), { organizationId: e.organizationId, documentId: row.documentId });
  if (!who.advanced && !who.basic) return;
  const comments = describeThreads(await deps.storage.comments.threads(scope, e.organizationId, [row.id])).get(row.id) ?? [];
  const userIds = participantsOf(row, comments);
  const of = await userChannels(deps, scope, e.organizationId, row.documentId, userIds);
  await emitEvent(deps, scope, commentEventOf(row, comments, e, userIds, of), who);
}
