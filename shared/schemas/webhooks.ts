import { z } from 'zod';
import { nonEmpty, pageToken, secret } from './common.ts';

/** reference.md 4.1, plus `notification.add` (Hearth: a notification was added, for teams that fan them out themselves). */
export const WEBHOOK_EVENT_TYPES = [
  'comment_annotation.add',
  'comment_annotation.assign',
  'comment_annotation.status_change',
  'comment_annotation.priority_change',
  'comment_annotation.custom_list_change',
  'comment_annotation.subscribe',
  'comment_annotation.unsubscribe',
  'comment_annotation.accept',
  'comment_annotation.reject',
  'comment_annotation.approve',
  'comment_annotation.suggestion_accept',
  'comment_annotation.suggestion_reject',
  'comment_annotation.delete',
  'comment.add',
  'comment.update',
  'comment.delete',
  'comment.reaction_add',
  'comment.reaction_delete',
  'huddle.create',
  'huddle.join',
  'crdt.update_data',
  'recorder.done',
  'notification.add',
  'execution.dispatched',
  'execution.completed',
  'execution.failed',
  'execution.cancelled',
  'step.awaiting-approval',
  'step.completed',
  'step.failed',
  'step.breached',
  'step.cancelled',
  'group.quorum-met',
  'loop.iteration-started',
  'loop.exhausted',
  'message.attempt.exhausted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const eventType = z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of the webhook event types: ${WEBHOOK_EVENT_TYPES.join(', ')}` });

/** Basic-webhook triggers on first enable (reference.md 4.6): comments and huddles on; CRDT, recorder and suggestions off. */
export function defaultBasicTriggers(): Record<string, boolean> {
  const triggers: Record<string, boolean> = {};
  for (const type of WEBHOOK_EVENT_TYPES) {
    if (type.startsWith('comment') || type.startsWith('huddle.')) triggers[type] = !type.includes('suggestion_');
  }
  triggers['crdt.update_data'] = false;
  triggers['recorder.done'] = false;
  return triggers;
}

export const advancedWebhookConfigUpdateInput = z.object({
  isEnabled: z.boolean().optional(),
  encryptData: z.boolean().optional(),
  encodeData: z.boolean().optional(),
  /** The base64 body of an RSA public key (a PEM is accepted and stored without its armour); '' clears it. */
  publicKey: z.string().max(8192).optional(),
  enableDataProtection: z.boolean().optional(),
});

const httpUrl = z.string().max(2048);
const metadata = z.record(z.string().max(200), z.string().max(2000)).refine((m) => Object.keys(m).length <= 50, { error: 'may hold at most 50 entries' });

export const endpointCreateInput = z.object({
  url: httpUrl,
  description: z.string().max(2000).optional(),
  filterTypes: z.array(eventType).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
  channels: z.array(nonEmpty(128)).min(1).max(10).optional(),
  disabled: z.boolean().optional(),
  /** Deliveries per second at most. */
  rateLimit: z.number().int().positive().max(100_000).optional(),
  uid: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]{1,256}$/, { error: 'may contain only letters, digits, _ . and -' })
    .optional(),
  metadata: metadata.optional(),
});

export const endpointRef = z.object({ endpointId: nonEmpty(256) });

export const endpointsGetInput = z.object({
  /** One endpoint (Hearth); without it, a page of all of them. */
  endpointId: nonEmpty(256).optional(),
  limit: z.number().int().min(1).max(250).default(50),
  iterator: pageToken.optional(),
});

export const endpointUpdateInput = z.object({
  endpointId: nonEmpty(256),
  url: httpUrl.optional(),
  description: z.string().max(2000).optional(),
  filterTypes: z.array(eventType).max(WEBHOOK_EVENT_TYPES.length).nullable().optional(),
  channels: z.array(nonEmpty(128)).max(10).nullable().optional(),
  disabled: z.boolean().optional(),
  rateLimit: z.number().int().positive().max(100_000).nullable().optional(),
  metadata: metadata.optional(),
});

export const secretRotateInput = z.object({
  endpointId: nonEmpty(256),
  /** A secret of your own (`whsec_` + base64 of 24–64 bytes); generated when absent. */
  key: secret(z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, { error: 'must be whsec_ followed by the base64 of 24 to 64 bytes' })).optional(),
});

/** The basic webhook targets' pseudo endpoint ids in attempt lists, replay and recover. */
export const BASIC_TARGETS = ['basic:raw', 'basic:processed'] as const;

export const attemptsListInput = z
  .object({
    endpointId: nonEmpty(256).optional(),
    messageId: nonEmpty(256).optional(),
    status: z.enum(['succeeded', 'failed']).optional(),
    limit: z.number().int().min(1).max(250).default(50),
    iterator: pageToken.optional(),
  })
  .refine((v) => v.endpointId !== undefined || v.messageId !== undefined, { error: 'endpointId or messageId is required', path: ['endpointId'] });

export const messageReplayInput = z.object({
  messageId: nonEmpty(256),
  /** Only this target; every target the message was delivered to when absent. */
  endpointId: nonEmpty(256).optional(),
});

export const endpointRecoverInput = z.object({
  endpointId: nonEmpty(256),
  /** ISO-8601 time or epoch milliseconds: failed deliveries created since then are sent again. */
  since: z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()]),
});

export const basicWebhookServiceConfig = z.object({
  authToken: secret(z.string().max(4096)).optional(),
  rawNotificationUrl: z.string().max(2048).optional(),
  processedNotificationUrl: z.string().max(2048).optional(),
  encodeData: z.boolean().optional(),
  encryptData: z.boolean().optional(),
  publicKey: z.string().max(8192).optional(),
  enableDataProtection: z.boolean().optional(),
  triggers: z.partialRecord(eventType, z.boolean()).optional(),
});

export const webhookConfigUpdateInput = z.object({
  useWebhookService: z.boolean().optional(),
  webhookServiceConfig: basicWebhookServiceConfig.optional(),
});
