import { z } from 'zod';
import { id, ids } from './access.ts';
import { pageToken } from './common.ts';
import { feedUser, notificationIdSchema, order } from './feed.ts';

const record = z.record(z.string(), z.unknown());
/** A point in time as the records give it: milliseconds since the epoch. */
const epochMs = z.number().int().min(0).max(8.64e15);

/** A tagged contact as the hosted SDK sends it: `{ userId?, contact?: { userId, … }, text? }`. */
export const taggedContact = z
  .object({ userId: id.optional(), contact: feedUser.partial().extend({ userId: id }).optional(), text: z.string().max(500).optional() })
  .refine((c) => c.userId !== undefined || c.contact !== undefined, { error: 'needs userId or contact.userId' });

/**
 * The hosted comment's fields Hearth keeps and returns as given (reference §3.9): its status (`added`/`updated`
 * in the hosted SDK), draft flag, direct recipients, attachments, recordings and custom list items.
 */
export const commentFields = {
  status: z.string().min(1).max(100).optional(),
  isDraft: z.boolean().optional(),
  to: z.array(feedUser).max(100).optional(),
  attachments: z.array(record).max(100).optional(),
  recorders: z.array(record).max(100).optional(),
  customList: z.array(record).max(100).optional(),
};

export const commentInput = z
  .object({
    commentId: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .optional(),
    commentText: z.string().max(100_000).optional(),
    commentHtml: z.string().max(200_000).optional(),
    from: feedUser,
    taggedUserContacts: z.array(taggedContact).max(100).optional(),
    context: record.optional(),
    /** When the comment was written and last edited (an import of older comments); the server's clock otherwise. */
    createdAt: epochMs.optional(),
    lastUpdated: epochMs.optional(),
    ...commentFields,
    /** The agent that wrote the comment (agentSource, agentId, executionId, agentName, url, reason). */
    agent: record.optional(),
    isCommentResolverUsed: z.boolean().optional(),
    isCommentTextAvailable: z.boolean().optional(),
    triggerNotification: z.boolean().optional(),
    triggerActivities: z.boolean().optional(),
  })
  .refine((c) => c.createdAt === undefined || c.lastUpdated === undefined || c.lastUpdated >= c.createdAt, {
    error: 'must not be before createdAt',
    path: ['lastUpdated'],
  });

export const statusInput = z
  .object({ id: z.string().min(1).max(100), name: z.string().max(200).optional(), type: z.string().max(100).optional() })
  .catchall(z.unknown());
/** Who sees an annotation: everyone with access to the document, or the listed users. */
export const COMMENT_VISIBILITIES = ['public', 'restricted'] as const;
export const visibilityInput = z.object({ type: z.enum(COMMENT_VISIBILITIES), userIds: z.array(id).max(1000).optional() });

export const annotationInput = z.object({
  annotationId: notificationIdSchema.optional(),
  location: z
    .object({ id: z.string().min(1).max(256) })
    .catchall(z.unknown())
    .optional(),
  targetElement: record.optional(),
  commentData: z.array(commentInput).min(1).max(100),
  status: statusInput.optional(),
  assignedTo: feedUser.optional(),
  context: record.optional(),
  priority: z.unknown().optional(),
  commentType: z.string().max(100).optional(),
  suggestion: record.optional(),
  visibility: visibilityInput.optional(),
});

export const annotationsAddInput = z.object({
  organizationId: id,
  documentId: id,
  createOrganization: z.boolean().optional(),
  createDocument: z.boolean().optional(),
  verifyUserPermissions: z.boolean().optional(),
  commentAnnotations: z.array(annotationInput).min(1).max(100),
});

/** What selects annotations in get and update (reference §3.9); every filter given narrows together. */
export const annotationFilters = {
  documentId: id.optional(),
  documentIds: z.array(id).min(1).max(30).optional(),
  annotationIds: z.array(id).min(1).max(100).optional(),
  locationIds: z.array(z.string().min(1)).min(1).max(100).optional(),
  userIds: z.array(id).min(1).max(100).optional(),
  mentionedUserIds: z.array(id).min(1).max(100).optional(),
  statusIds: z.array(z.string().min(1)).min(1).max(50).optional(),
  /** Annotations of the documents directly in this folder (`root`: at the top of the organization). */
  folderId: id.optional(),
  /** Annotations resolved by this user. */
  resolvedBy: id.optional(),
  /** Time bounds in milliseconds since the epoch, exclusive: created (or last updated) after / before. */
  createdAfter: epochMs.optional(),
  createdBefore: epochMs.optional(),
  updatedAfter: epochMs.optional(),
  updatedBefore: epochMs.optional(),
};

export const annotationsGetInput = z.object({
  organizationId: id,
  ...annotationFilters,
  /** The page as `{ <documentId>: [annotations] }` instead of a list. */
  groupByDocumentId: z.boolean().optional(),
  /** The reader: restricted (private) annotations the reader may not see are left out. */
  userId: id.optional(),
  order,
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
});

/** One user put in another's place in the selected annotations (a guest who signed in, a merged account). */
export const userReplacement = z.object({ oldUser: feedUser.pick({ userId: true }).loose(), newUser: feedUser });

export const annotationsUpdateInput = z.object({
  organizationId: id,
  ...annotationFilters,
  actionUser: feedUser.optional(),
  updatedData: z
    .object({
      status: statusInput.optional(),
      priority: z.unknown().optional(),
      assignedTo: feedUser.nullable().optional(),
      context: record.optional(),
      location: z
        .object({ id: z.string().min(1).max(256) })
        .catchall(z.unknown())
        .optional(),
      visibility: visibilityInput.optional(),
      resolvedByUserId: id.nullable().optional(),
    })
    .optional(),
  updateUsers: z.array(userReplacement).min(1).max(100).optional(),
});

export const annotationsDeleteInput = z.object({ organizationId: id, annotationIds: ids(1000), actionUser: feedUser.optional() });
export const annotationsCountInput = z.object({
  organizationId: id,
  documentIds: ids(30),
  userId: id,
  statusIds: z.array(z.string().min(1)).max(50).optional(),
});
export const annotationsReadInput = z.object({ organizationId: id, annotationIds: ids(1000), userId: id });

export const commentsAddInput = z.object({ organizationId: id, annotationId: id, commentData: z.array(commentInput).min(1).max(100) });
export const commentsGetInput = z.object({ organizationId: id, annotationId: id, commentIds: z.array(z.number().int()).min(1).max(1000).optional() });
export const commentsUpdateInput = z.object({
  organizationId: id,
  annotationId: id,
  commentIds: z.array(z.number().int()).min(1).max(1000),
  updatedData: z.object({
    commentText: z.string().max(100_000).optional(),
    commentHtml: z.string().max(200_000).optional(),
    taggedUserContacts: z.array(taggedContact).max(100).optional(),
    context: record.optional(),
    ...commentFields,
  }),
  actionUser: feedUser.optional(),
});
export const commentsDeleteInput = z.object({
  organizationId: id,
  annotationId: id,
  commentIds: z.array(z.number().int()).min(1).max(1000),
  actionUser: feedUser.optional(),
});

export const reactionsAddInput = z.object({
  organizationId: id,
  annotationId: id,
  commentId: z.number().int(),
  icon: z.string().trim().min(1).max(64),
  from: feedUser,
});
export const reactionsGetInput = z.object({ organizationId: id, annotationId: id, commentId: z.number().int().optional() });
export const reactionsDeleteInput = z.object({ organizationId: id, reactionIds: ids(1000) });
