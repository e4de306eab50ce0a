import { z } from 'zod';
import { id, ids, userInput } from './access.ts';
import { pageToken } from './common.ts';

export const order = z.enum(['asc', 'desc']).default('desc');

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
  notificationSource: z.enum(['custom', 'comment', 'huddle', 'crdt']).optional(),
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

export const CHANNEL_VALUES = ['ALL', 'MINE', 'NONE'] as const;
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
