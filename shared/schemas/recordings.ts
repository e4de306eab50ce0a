import { z } from 'zod';
import { id, ids } from './access.ts';
import { pageToken } from './common.ts';
import { feedUser, notificationIdSchema } from './feed.ts';

export const RECORDING_MIME_TYPES = [
  'video/webm',
  'video/mp4',
  'audio/webm',
  'audio/ogg',
  'audio/mpeg',
  'audio/wav',
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
] as const;

export const recordingsAddInput = z.object({
  organizationId: id,
  documentId: id,
  createOrganization: z.boolean().optional(),
  createDocument: z.boolean().optional(),
  recording: z.object({
    recordingId: notificationIdSchema.optional(),
    recordingType: z.enum(['screen', 'video', 'audio']),
    mode: z.string().min(1).max(50).default('floating'),
    displayName: z.string().max(500).optional(),
    from: feedUser,
    recordedTime: z.object({ duration: z.number().int().min(0) }),
    attachments: z
      .array(
        z.object({ name: z.string().min(1).max(500), mimeType: z.enum(RECORDING_MIME_TYPES), type: z.string().max(50).optional(), data: z.string().min(1) }),
      )
      .min(1)
      .max(5),
  }),
});

export const recordingsGetInput = z.object({
  organizationId: id,
  documentId: id.optional(),
  recordingIds: z.array(id).min(1).max(30).optional(),
  pageSize: z.number().int().min(1).max(1000).default(1000),
  pageToken: pageToken.nullish(),
});

export const recordingsDeleteInput = z.object({ organizationId: id, recordingIds: ids(1000) });
