import { z } from 'zod';
import { id, ids, userInput } from './access.ts';
import { pageToken } from './common.ts';

export const order = z.enum(['asc', 'desc']).default('desc');

export const NOTIFICATION_SOURCES = ['custom', 'comment', 'huddle', 'crdt'] as const;
export const CHANNEL_VALUES = ['ALL', 'MINE', 'NONE'] as const;

/** A user as the feed takes it (actionUser, notifyUsers): userId plus display fields. */
export const feedUser = userInput.omit({ accessRole: true });

export const notificationIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'may contain only letters, digits, _ and -' });

export const notificationsAddInput = z.object({
  organizationId: id,
  createOrganization: z.boolean().optional(),
  documentId: id,
  createDocument: z.boolean().optional(),
  actionUser: feedUser,
  verifyUserPermissions: z.boolean().optional(),
  notificationId: notificationIdSchema.optional(),
  isNotificationResolverUsed: z.boolean().optional(),
  displayHeadlineMessageTemplate: z.string().max(10_000).optional(),
  displayHeadlineMessageTemplateData: z.record(z.string(), z.unknown()).optional(),
  displayBodyMessage: z.string().max(100_000).optional(),
  notifyUsers: z.array(feedUser).max(10_000),
  notifyAll: z.boolean().optional(),
  notificationSource: z.enum(NOTIFICATION_SOURCES).optional(),
  notificationSourceData: z.record(z.string(), z.unknown()).optional(),
  locationId: id.optional(),
  context: z.object({ access: z.record(z.string(), z.union([z.string(), z.number()])) }).optional(),
});

export const notificationsGetInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  locationId: id.optional(),
  userId: id.optional(),
  notificationIds: z.array(id).min(1).max(30).optional(),
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
  order,
});

export const notificationsDeleteInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  locationId: id.optional(),
  userId: id.optional(),
  notificationIds: z.array(id).min(1).max(1000).optional(),
});

export const notificationsUpdateInput = z.object({
  organizationId: id,
  notifications: z
    .array(
      z.object({
        id,
        actionUser: feedUser.optional(),
        displayHeadlineMessageTemplate: z.string().max(10_000).optional(),
        displayHeadlineMessageTemplateData: z.record(z.string(), z.unknown()).optional(),
        displayBodyMessage: z.string().max(100_000).optional(),
        notificationSourceData: z.record(z.string(), z.unknown()).optional(),
        readByUserIds: z.array(id).max(10_000).optional(),
        unreadByUserIds: z.array(id).max(10_000).optional(),
      }),
    )
    .min(1)
    .max(1000),
});

export const notificationConfigValue = z.object({
  inbox: z.enum(CHANNEL_VALUES).optional(),
  email: z.enum(CHANNEL_VALUES).optional(),
  slack: z.enum(CHANNEL_VALUES).optional(),
});

export const notificationConfigGetInput = z.object({
  organizationId: id,
  userId: id,
  documentIds: z.array(id).max(100).optional(),
  getOrganizationConfig: z.boolean().optional(),
});

export const notificationConfigSetInput = z.object({
  organizationId: id,
  userIds: ids(1000),
  documentIds: z.array(id).max(100).optional(),
  config: notificationConfigValue,
});

export const FEATURE_TYPES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'] as const;
const json = z.unknown();

const activityFields = {
  changes: z.record(z.string(), z.object({ from: json.optional(), to: json.optional() })).optional(),
  entityData: json.optional(),
  entityTargetData: json.optional(),
  displayMessageTemplate: z.string().max(10_000).optional(),
  displayMessageTemplateData: z.record(z.string(), z.unknown()).optional(),
  actionIcon: z.string().max(2048).optional(),
};

export const activityInput = z.object({
  id: id.optional(),
  featureType: z.enum(FEATURE_TYPES),
  actionType: z.string().trim().min(1).max(200),
  actionUser: feedUser,
  targetEntityId: id.optional(),
  targetSubEntityId: id.optional(),
  isActivityResolverUsed: z.boolean().optional(),
  ...activityFields,
});

export const activitiesAddInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  activities: z.array(activityInput).min(1).max(1000),
});

export const activitiesGetInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  targetEntityId: id.optional(),
  featureTypes: z.array(z.enum(FEATURE_TYPES)).min(1).max(5).optional(),
  actionTypes: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
  userId: id.optional(),
  activityIds: z.array(id).min(1).max(100).optional(),
  order,
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
});

export const activitiesUpdateInput = z.object({
  organizationId: id,
  activities: z
    .array(z.object({ id, ...activityFields }))
    .min(1)
    .max(1000),
});

export const activitiesDeleteInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  targetEntityId: id.optional(),
  activityIds: z.array(id).min(1).max(1000).optional(),
});

export const userDataGetInput = z.object({ organizationId: id, userId: id, pageToken: pageToken.nullish() });
export const userDataDeleteInput = z.object({ userId: id, organizationId: id.optional() });
export const userDataDeleteStatusInput = z.object({ jobId: id });
