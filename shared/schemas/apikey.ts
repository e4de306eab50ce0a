import { z } from 'zod';
import { DOCUMENT_ACCESS_TYPES, email, nonEmpty, pageSize, pageToken, secret } from './common.ts';
import { basicWebhookServiceConfig } from './webhooks.ts';

export const API_KEY_TYPES = ['testing', 'production'] as const;
export type ApiKeyType = (typeof API_KEY_TYPES)[number];

/** `thirdparty` per interface.md; `sendgrid` is the hosted spelling and accepted as an alias. */
export const EMAIL_SERVICE_TYPES = ['default', 'thirdparty', 'sendgrid'] as const;

export const AI_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** A domain an auth token or key may be used from: a host name (wildcard first label allowed) with an optional port. */
export const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9]([a-z0-9-]{0,62})?(\.[a-z0-9]([a-z0-9-]{0,62})?)*(:\d{1,5})?$/, {
    error: 'must be a domain name such as app.example.com or localhost:3000',
  });

export const emailServiceConfigInput = z.object({
  type: z.enum(EMAIL_SERVICE_TYPES).optional(),
  apiKey: secret(z.string().max(4096)).optional(),
  /** The From address of the key's notification mail (with `fromCompany` as its name); the server's own otherwise. */
  fromEmail: email.optional(),
  fromCompany: z.string().max(200).optional(),
  commentTemplateId: z.string().max(200).optional(),
  tagTemplateId: z.string().max(200).optional(),
});

/**
 * /v2/workspace/emailconfig/update: partial. In `emailServiceConfig`, a given field replaces the stored one and
 * an empty string removes it (`apiKey`: the stored secret).
 */
export const emailConfigUpdateInput = z.object({
  useEmailService: z.boolean().optional(),
  emailServiceConfig: emailServiceConfigInput.extend({ fromEmail: email.or(z.literal('')).optional() }).optional(),
});

export const webhookServiceConfigInput = z.object({
  authToken: secret(z.string().max(4096)).optional(),
  rawNotificationUrl: z.string().max(2048).optional(),
  processedNotificationUrl: z.string().max(2048).optional(),
});

/** The events `notificationTriggers` names: what setDefaultNotificationTriggers seeds, and notificationconfig may set. */
export const NOTIFICATION_TRIGGERS = ['comment', 'reply', 'mention', 'statusChange', 'reaction', 'huddle'] as const;
export type NotificationTrigger = (typeof NOTIFICATION_TRIGGERS)[number];

/**
 * /v2/workspace/notificationconfig/update: `useNotificationService` and `notificationServiceConfig.triggers` are the
 * settings apikey/create's `useNotificationService` and `setDefaultNotificationTriggers` set; triggers merge.
 */
export const notificationConfigUpdateInput = z.object({
  useNotificationService: z.boolean().optional(),
  notificationServiceConfig: z.object({ triggers: z.partialRecord(z.enum(NOTIFICATION_TRIGGERS), z.boolean()).optional() }).optional(),
});

/** /v2/workspace/activityconfig/update: at least one field of `activityServiceConfig`. */
export const activityConfigUpdateInput = z.object({
  activityServiceConfig: z.object({
    isEnabled: z.boolean().optional(),
    /** When the activity service was (last) turned on, in milliseconds; stamped with the time of the call otherwise. */
    enabledTime: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
  }),
});

/**
 * /v2/workspace/permissionproviderconfig/update: partial. The URL must be http(s) or '' (which clears it); the
 * auth token is kept encrypted and shown only as `authTokenConfigured` ('' removes it).
 */
export const permissionProviderConfigUpdateInput = z.object({
  usePermissionProvider: z.boolean().optional(),
  permissionProviderConfig: z
    .object({
      permissionProviderUrl: z.string().max(2048).optional(),
      authToken: secret(z.string().max(4096)).optional(),
    })
    .optional(),
});

export const apiKeyCreateInput = z.object({
  ownerEmail: email,
  type: z.enum(API_KEY_TYPES),
  persistenceDBRegion: z.string().max(100).optional(),
  realtimeDBRegion: z.string().max(100).optional(),
  createAuthToken: z.boolean().optional(),
  apiKeyName: nonEmpty(200).optional(),
  allowedDomains: z.array(domainName).max(100).optional(),
  addLocalHostToAllowedDomains: z.boolean().optional(),
  useEmailService: z.boolean().optional(),
  useWebhookService: z.boolean().optional(),
  useNotificationService: z.boolean().optional(),
  setDefaultNotificationTriggers: z.boolean().optional(),
  setDefaultEmailTriggers: z.boolean().optional(),
  requireAutoOrgUser: z.boolean().optional(),
  enablePrivateComments: z.boolean().optional(),
  emailServiceConfig: emailServiceConfigInput.optional(),
  webhookServiceConfig: webhookServiceConfigInput.optional(),
});
export type ApiKeyCreateInput = z.infer<typeof apiKeyCreateInput>;

/** The non-secret settings stored with an API key. Secret parts live encrypted in api_key_secrets. */
export const apiKeySettings = z.object({
  useEmailService: z.boolean(),
  useWebhookService: z.boolean(),
  useNotificationService: z.boolean(),
  requireAutoOrgUser: z.boolean(),
  enablePrivateComments: z.boolean(),
  requireJwtToken: z.boolean(),
  defaultDocumentAccessType: z.enum(DOCUMENT_ACCESS_TYPES),
  emailServiceConfig: emailServiceConfigInput.omit({ apiKey: true }).extend({ type: z.enum(['default', 'thirdparty']) }),
  /** The basic webhook service; the auth token lives encrypted with the other secrets. */
  webhookServiceConfig: basicWebhookServiceConfig.omit({ authToken: true }),
  notificationTriggers: z.record(z.string(), z.boolean()).nullable(),
  emailTriggers: z.record(z.string(), z.boolean()).nullable(),
  /** Per provider: where requests go (a team may point one at a model server in its network). */
  aiProviders: z.partialRecord(z.enum(AI_PROVIDERS), z.object({ baseUrl: z.string().nullable() })),
  // Added later than the fields above: rows written before have none of them, so they are optional here and
  // read with their defaults (services/apikeys.ts: activityServiceOf, permissionProviderOf).
  /** activityconfig: whether activities/add is accepted (on when absent), and since when. */
  activityServiceConfig: z.object({ isEnabled: z.boolean(), enabledTime: z.number().nullable() }).optional(),
  /** permissionproviderconfig: stored and shown; Hearth decides access itself. The auth token is a secret. */
  usePermissionProvider: z.boolean().optional(),
  permissionProviderConfig: z.object({ permissionProviderUrl: z.string() }).optional(),
});
export type ApiKeySettings = z.infer<typeof apiKeySettings>;

/** /v2/workspace/domains/add and /delete. */
export const domainsInput = z.object({ domains: z.array(domainName).min(1).max(100) });

export const apiKeyRef = z.object({ apiKey: nonEmpty(200) });

export const apiKeysGetInput = z.object({
  apiKeys: z.array(nonEmpty(200)).max(100).optional(),
  pageSize: pageSize(100, 50),
  pageToken: pageToken.nullish(),
});

export const apiKeyUpdateInput = z.object({
  apiKey: nonEmpty(200),
  apiKeyName: nonEmpty(200),
});

export const authTokenResetInput = z.object({
  apiKey: nonEmpty(200),
  /** Which token to replace; the key's first (default) token when omitted. */
  authToken: secret(z.string().min(1).max(200)).optional(),
});

export const aiModelApiKeyInput = z.object({
  provider: z.enum(AI_PROVIDERS),
  /** The provider key; an empty string removes it. */
  customerApiKey: secret(z.string().max(4096)),
  /** Base URL of the provider's API (an OpenAI-compatible server for openai); null resets to the provider's own. */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .nullable()
    .optional(),
});

export const apiKeyConfigUpdateInput = z.object({
  enablePrivateComments: z.boolean().optional(),
  requireJwtToken: z.boolean().optional(),
  requireAutoOrgUser: z.boolean().optional(),
  defaultDocumentAccessType: z.enum(DOCUMENT_ACCESS_TYPES).optional(),
  aiModelApiKey: z.array(aiModelApiKeyInput).max(AI_PROVIDERS.length).optional(),
});
