/**
 * Comment threads of the demo set, as the comments and reactions services write them: the annotation, its
 * comments (each with its `comment.add` activity), the author's read marker, reactions with their
 * `reaction.add` activity, and a `comment` notification to each user a comment mentions.
 */
import type { AccessRole } from '../../shared/schemas/common.ts';
import type { BulkRow, BulkTable } from '../db/repos/seed.ts';
import { COMMENT_TEXTS, REACTION_ICONS, STATUSES, type Dice } from './seed-text.ts';

export interface Member {
  user: { userId: string; name: string; email: string };
  role: AccessRole;
}

type Put = <T extends BulkTable>(table: T) => (row: BulkRow<T>) => void;
type ActivityInput = Omit<BulkRow<'activities'>, 'apiKeyId' | 'id' | 'actionUserId' | 'resolver'>;

/** Writes `annotations` threads spread over the organizations; returns how many mention notifications it wrote. */
export function writeComments(input: {
  put: Put;
  apiKeyId: string;
  d: Dice;
  now: number;
  annotations: number;
  organizations: Array<{ id: string; documentIds: string[]; crdtDocuments: Array<{ documentId: string }> }>;
  members: Member[][];
  docsByOrg: Array<Array<{ id: string; title: string; createdAt: number }>>;
  activity: (row: ActivityInput) => void;
  insertNotification: (row: BulkRow<'notifications'>) => void;
  insertRecipient: (row: BulkRow<'notificationRecipients'>) => void;
  progress: (units: number, label: string) => void;
}): number {
  const { put, apiKeyId, d, now, organizations, members, docsByOrg, activity } = input;
  const insertAnnotation = put('commentAnnotations');
  const insertComment = put('comments');
  const insertRead = put('commentReads');
  const insertReaction = put('reactions');
  let mentions = 0;
  const nextNotification = organizations.map(() => 0);

  for (let a = 0; a < input.annotations; a++) {
    const o = a % organizations.length;
    const org = organizations[o] as (typeof organizations)[number];
    const orgMembers = members[o] as Member[];
    const docs = docsByOrg[o] as Array<{ id: string; title: string; createdAt: number }>;
    // threads sit on documents with collaborative content where there are some (the inspector shows both)
    const withContent = org.crdtDocuments.length;
    const doc = withContent > 0 ? (docs[d.int(0, withContent - 1)] as (typeof docs)[number]) : (d.pick(docs) as (typeof docs)[number]);
    const status = d.chance(0.6) ? STATUSES[0] : d.pick(STATUSES);
    const commenters = d.sample(orgMembers, d.int(1, Math.min(4, orgMembers.length)));
    const first = (commenters[0] as Member).user;
    const id = d.alphanumeric(20);
    const count = d.int(1, 4);
    const times = [Math.max(doc.createdAt, Math.round(now - d.random() * 14 * 24 * 3600_000))];
    while (times.length < count) times.push(Math.min(now, (times[times.length - 1] as number) + d.int(10 * 60_000, 24 * 3600_000)));
    const assignee = d.chance(0.3) ? d.pick(orgMembers).user : null;
    const resolver = status.id === 'RESOLVED' ? d.pick(commenters).user.userId : null;
    insertAnnotation({
      apiKeyId,
      organizationId: org.id,
      id,
      documentId: doc.id,
      locationId: null,
      location: null,
      targetElement: null,
      status: { ...status },
      statusId: status.id,
      priority: null,
      assignedTo: assignee,
      context: null,
      visibility: 'public',
      visibleToUserIds: null,
      commentType: null,
      createdByUserId: first.userId,
      resolvedByUserId: resolver,
      createdAt: times[0] as number,
      updatedAt: times[count - 1] as number,
    });
    const reads = new Map<string, number>();
    const usedIds = new Set<number>();
    for (let c = 0; c < count; c++) {
      const at = times[c] as number;
      const from = (commenters[c % commenters.length] as Member).user;
      let commentId = d.int(100_000, 999_999);
      while (usedIds.has(commentId)) commentId = d.int(100_000, 999_999);
      usedIds.add(commentId);
      const others = orgMembers.filter((m) => m.user.userId !== from.userId);
      const mentioned = others.length > 0 && d.chance(0.2) ? d.pick(others).user : null;
      const text = `${mentioned ? `@${mentioned.name} ` : ''}${c === count - 1 && resolver ? 'Done. Resolving this thread.' : d.pick(COMMENT_TEXTS)}`;
      const tagged = mentioned ? [{ userId: mentioned.userId, contact: { userId: mentioned.userId, name: mentioned.name, email: mentioned.email } }] : null;
      insertComment({
        apiKeyId,
        organizationId: org.id,
        annotationId: id,
        id: commentId,
        fromUser: from,
        fromUserId: from.userId,
        text,
        html: null,
        taggedUserContacts: tagged,
        mentionedUserIds: mentioned ? [mentioned.userId] : [],
        context: null,
        createdAt: at,
        updatedAt: at,
      });
      reads.set(from.userId, at);
      activity({
        organizationId: org.id,
        documentId: doc.id,
        featureType: 'comment',
        actionType: 'comment.add',
        actionUser: from,
        targetEntityId: id,
        targetSubEntityId: String(commentId),
        entityData: { commentText: text },
        displayMessageTemplate: '{{actionUser}} added a comment',
        displayMessageTemplateData: { actionUser: from.name },
        timestamp: at,
      });
      if (mentioned) {
        const notificationId = String(1_000_000_000_000_000 + nextNotification[o]!++);
        input.insertNotification({
          apiKeyId,
          organizationId: org.id,
          id: notificationId,
          documentId: doc.id,
          locationId: null,
          source: 'comment',
          sourceData: { annotationId: id, commentId },
          actionUser: from,
          headlineTemplate: '{actionUser} mentioned you in a comment',
          headlineData: { actionUser: from },
          body: text,
          resolver: false,
          contextAccess: null,
          timestamp: at,
        });
        input.insertRecipient({
          apiKeyId,
          organizationId: org.id,
          notificationId,
          userId: mentioned.userId,
          documentId: doc.id,
          timestamp: at,
          explicit: true,
          readAt: null,
        });
        mentions++;
      }
      if (d.chance(0.4)) {
        const reactors = d.sample(others, d.int(1, 2));
        for (const reactor of reactors) {
          const icon = d.pick(REACTION_ICONS);
          const reactedAt = at + d.int(60_000, 3600_000);
          insertReaction({
            apiKeyId,
            organizationId: org.id,
            id: d.alphanumeric(20),
            annotationId: id,
            commentId,
            icon,
            fromUser: reactor.user,
            fromUserId: reactor.user.userId,
            createdAt: reactedAt,
          });
          activity({
            organizationId: org.id,
            documentId: doc.id,
            featureType: 'reaction',
            actionType: 'reaction.add',
            actionUser: reactor.user,
            targetEntityId: id,
            targetSubEntityId: String(commentId),
            entityData: { icon },
            displayMessageTemplate: '{{actionUser}} reacted with {{icon}}',
            displayMessageTemplateData: { actionUser: reactor.user.name, icon },
            timestamp: reactedAt,
          });
        }
      }
    }
    for (const [userId, readAt] of reads) insertRead({ apiKeyId, organizationId: org.id, annotationId: id, userId, readAt });
    input.progress(1, 'comments');
  }
  return mentions;
}
