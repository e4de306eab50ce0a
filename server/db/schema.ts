import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { ApiKeySettings } from '../../shared/schemas/apikey.ts';

const now = sql`(CAST(unixepoch('subsec') * 1000 AS INTEGER))`;

/** A workspace: the owner's account. Its auth token is stored only encrypted and as a keyed digest. */
export const workspaces = sqliteTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    ownerId: text('owner_id').notNull(),
    ownerEmail: text('owner_email').notNull(),
    ownerName: text('owner_name').notNull().default(''),
    ownerAvatar: text('owner_avatar').notNull().default(''),
    authTokenEnc: text('auth_token_enc').notNull(),
    authTokenDigest: text('auth_token_digest').notNull(),
    plan: text('plan', { enum: ['free', 'paid'] }).notNull().default('free'),
    selfServeProduction: integer('self_serve_production', { mode: 'boolean' }).notNull().default(false),
    maxProductionKeys: integer('max_production_keys').notNull().default(0),
    emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(false),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [index('workspaces_owner_email').on(t.ownerEmail, t.createdAt)],
);

/** An API key: the tenant. Every row of every later area carries its id. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['testing', 'production'] }).notNull(),
    ownerEmail: text('owner_email').notNull(),
    persistenceRegion: text('persistence_region'),
    realtimeRegion: text('realtime_region'),
    allowedDomains: text('allowed_domains', { mode: 'json' }).$type<string[]>().notNull(),
    settings: text('settings', { mode: 'json' }).$type<ApiKeySettings>().notNull(),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [index('api_keys_workspace_created').on(t.workspaceId, t.createdAt, t.id)],
);

export const authTokens = sqliteTable(
  'auth_tokens',
  {
    id: text('id').primaryKey(),
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    domains: text('domains', { mode: 'json' }).$type<string[]>().notNull(),
    tokenEnc: text('token_enc').notNull(),
    tokenDigest: text('token_digest').notNull(),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('auth_tokens_digest').on(t.tokenDigest), index('auth_tokens_api_key').on(t.apiKeyId, t.createdAt)],
);

/** Secrets that belong to an API key (AI provider keys, e-mail provider key, basic-webhook token), encrypted. */
export const apiKeySecrets = sqliteTable(
  'api_key_secrets',
  {
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    valueEnc: text('value_enc').notNull(),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.name] })],
);

export const loginLinks = sqliteTable(
  'login_links',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    tokenDigest: text('token_digest').notNull(),
    continueUrl: text('continue_url').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [uniqueIndex('login_links_digest').on(t.tokenDigest)],
);

/** Every e-mail Hearth sends, kept locally (the admin UI's mailbox) and relayed over SMTP when configured. */
export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id').references(() => apiKeys.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    /** Encrypted JSON `{ text, html }`: bodies may carry one-time sign-in links. */
    bodyEnc: text('body_enc').notNull(),
    status: text('status', { enum: ['stored', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [index('mail_outbox_created').on(t.createdAt, t.id)],
);
