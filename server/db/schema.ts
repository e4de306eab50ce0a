import { sql } from 'drizzle-orm';
import { blob, foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { EXECUTION_STATUSES, JUDGMENT_DECISION_VALUES } from '../../shared/schemas/ai.ts';
import { API_KEY_TYPES, type ApiKeySettings } from '../../shared/schemas/apikey.ts';
import { COMMENT_VISIBILITIES } from '../../shared/schemas/comments.ts';
import { WORKSPACE_PLANS } from '../../shared/schemas/workspace.ts';
import { ACCESS_ROLES, DOCUMENT_ACCESS_TYPES } from '../../shared/schemas/common.ts';
import { CHANNEL_VALUES, FEATURE_TYPES, NOTIFICATION_SOURCES } from '../../shared/schemas/feed.ts';
import { CRDT_DATA_TYPES } from '../../shared/schemas/crdt.ts';

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
    plan: text('plan', { enum: WORKSPACE_PLANS }).notNull().default('free'),
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
    type: text('type', { enum: API_KEY_TYPES }).notNull(),
    ownerEmail: text('owner_email').notNull(),
    persistenceRegion: text('persistence_region'),
    realtimeRegion: text('realtime_region'),
    allowedDomains: text('allowed_domains', { mode: 'json' }).$type<string[]>().notNull(),
    settings: text('settings', { mode: 'json' }).$type<ApiKeySettings>().notNull(),
    /**
     * Disabled by the workspace's admin (the admin UI): every operation and websocket upgrade with the key is
     * refused (PERMISSION_DENIED) and its open connections are closed, until it is enabled again. Its data stays.
     */
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    /** When it was last disabled (null while it never was, or once enabled again). */
    disabledAt: integer('disabled_at'),
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
export const MAIL_STATUSES = ['kept', 'queued', 'sent', 'failed', 'skipped'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id').references(() => apiKeys.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    /**
     * What an API key said of the sender (emailconfig's fromEmail and fromCompany): the address is relayed as Reply-To
     * and the name as From's display name; From's address and the envelope sender are always the server's (issue 42).
     */
    fromAddress: text('from_address'),
    fromName: text('from_name'),
    subject: text('subject').notNull(),
    /** Encrypted JSON `{ text, html }`: bodies may carry one-time sign-in links. */
    bodyEnc: text('body_enc').notNull(),
    /**
     * `kept`: local mailbox only (no SMTP when it was written; never relayed later); `queued`: waiting to be
     * relayed; `sent`; `failed` (refused, or out of attempts); `skipped`: not relayed because it could not be
     * used any more (a login link used or expired before it went out).
     */
    status: text('status', { enum: MAIL_STATUSES }).notNull(),
    /** The login link a login-link mail carries: it is not relayed once that link is used or expired. */
    loginLinkId: text('login_link_id'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
    /** Until when the instance relaying a queued mail holds it (ms); past that, another instance may relay it. */
    leaseUntil: integer('lease_until'),
  },
  (t) => [
    index('mail_outbox_created').on(t.createdAt, t.id),
    // the admin UI's mailbox: a workspace's own mail and each of its keys', newest first, paged
    index('mail_outbox_workspace').on(t.workspaceId, t.createdAt, t.id),
    index('mail_outbox_key').on(t.apiKeyId, t.createdAt, t.id),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// The access model: organizations, folders, documents, users, memberships, groups, document migrations.
// Every table is keyed by the API key first, so that no query can reach another tenant's rows.
// ---------------------------------------------------------------------------------------------------------

const apiKeyRef = () =>
  text('api_key_id')
    .notNull()
    .references(() => apiKeys.id, { onDelete: 'cascade' });

export const organizations = sqliteTable(
  'organizations',
  {
    apiKeyId: apiKeyRef(),
    id: text('id').notNull(),
    name: text('name').notNull().default(''),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.id] }),
    // the admin UI's sorts (keyset pages): by name, ignoring case, and by last update
    index('organizations_name').on(t.apiKeyId, sql`name COLLATE NOCASE`, t.id),
    index('organizations_updated').on(t.apiKeyId, t.updatedAt, t.id),
  ],
);

const orgRef = (t: { apiKeyId: AnySQLiteColumn; organizationId: AnySQLiteColumn }) =>
  foreignKey({ columns: [t.apiKeyId, t.organizationId], foreignColumns: [organizations.apiKeyId, organizations.id] }).onDelete('cascade');

/**
 * Folders form a tree per organization. `ancestors` is the hosted shape (`["root", …, parent]`); `path` is the
 * same chain as one sortable string (`/a/b/c/`, ids URI-encoded) so that a subtree is one index range.
 * `accessType` is the effective value: the folder's own, or its parent's when it inherits.
 */
export const folders = sqliteTable(
  'folders',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    name: text('name').notNull().default(''),
    parentId: text('parent_id').notNull(),
    ancestors: text('ancestors', { mode: 'json' }).$type<string[]>().notNull(),
    path: text('path').notNull(),
    ownAccessType: text('own_access_type', { enum: DOCUMENT_ACCESS_TYPES }),
    inheritAccess: integer('inherit_access', { mode: 'boolean' }).notNull(),
    accessType: text('access_type', { enum: DOCUMENT_ACCESS_TYPES }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('folders_path').on(t.apiKeyId, t.organizationId, t.path),
    index('folders_parent').on(t.apiKeyId, t.organizationId, t.parentId, t.id),
    orgRef(t),
  ],
);

export const documents = sqliteTable(
  'documents',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    name: text('name').notNull().default(''),
    /** Null: at the top of the organization (the hosted `root`). */
    folderId: text('folder_id'),
    accessType: text('access_type', { enum: DOCUMENT_ACCESS_TYPES }).notNull(),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('documents_folder').on(t.apiKeyId, t.organizationId, t.folderId, t.id),
    // the admin UI's sorts (keyset pages) of an organization's documents, and of one folder's
    index('documents_name').on(t.apiKeyId, t.organizationId, sql`name COLLATE NOCASE`, t.id),
    index('documents_updated').on(t.apiKeyId, t.organizationId, t.updatedAt, t.id),
    index('documents_folder_name').on(t.apiKeyId, t.organizationId, t.folderId, sql`name COLLATE NOCASE`, t.id),
    index('documents_folder_updated').on(t.apiKeyId, t.organizationId, t.folderId, t.updatedAt, t.id),
    orgRef(t),
  ],
);

/** The API key's user directory: one profile per userId. Access comes from memberships. */
export const users = sqliteTable(
  'users',
  {
    apiKeyId: apiKeyRef(),
    id: text('id').notNull(),
    internalId: text('internal_id').notNull(),
    name: text('name'),
    email: text('email'),
    initial: text('initial'),
    photoUrl: text('photo_url'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.id] }),
    // the admin UI's sort by name (ignoring case; users without one first, as ''): keyset pages over this expression
    // (no comma in it: drizzle-kit splits an index's SQL on commas)
    index('users_name').on(t.apiKeyId, sql`(CASE WHEN name IS NULL THEN '' ELSE name END) COLLATE NOCASE`, t.id),
  ],
);

export const MEMBERSHIP_LEVELS = ['organization', 'folder', 'document'] as const;
export type MembershipLevel = (typeof MEMBERSHIP_LEVELS)[number];

/**
 * A user's role on one organization, folder or document. Written by users add/update/delete, the auth
 * permissions operations and token generation alike; `expiresAt` (ms) comes from permissions.
 * For the organization level `resourceId` is the organization id.
 */
export const memberships = sqliteTable(
  'memberships',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    level: text('level', { enum: MEMBERSHIP_LEVELS }).notNull(),
    resourceId: text('resource_id').notNull(),
    userId: text('user_id').notNull(),
    accessRole: text('access_role', { enum: ACCESS_ROLES }).notNull(),
    expiresAt: integer('expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.level, t.resourceId, t.userId] }),
    index('memberships_user').on(t.apiKeyId, t.organizationId, t.userId),
    orgRef(t),
  ],
);

export const userGroups = sqliteTable(
  'user_groups',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    name: text('name').notNull().default(''),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }), orgRef(t)],
);

export const userGroupMembers = sqliteTable(
  'user_group_members',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    groupId: text('group_id').notNull(),
    userId: text('user_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.groupId, t.userId] }),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.groupId],
      foreignColumns: [userGroups.apiKeyId, userGroups.organizationId, userGroups.id],
    }).onDelete('cascade'),
  ],
);

export const MIGRATION_STATES = ['pending', 'in_progress', 'completed', 'failed'] as const;

/** Background jobs that move a document's data to a new document id. */
export const documentMigrations = sqliteTable(
  'document_migrations',
  {
    id: text('id').primaryKey(),
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    fromDocumentId: text('from_document_id').notNull(),
    toDocumentId: text('to_document_id').notNull(),
    status: text('status', { enum: MIGRATION_STATES }).notNull(),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    completedAt: integer('completed_at'),
    /** Until when the instance that took it holds it (ms); past that, another instance may take it over (a cluster's leases). */
    leaseUntil: integer('lease_until'),
  },
  (t) => [index('document_migrations_status').on(t.status, t.createdAt)],
);

// ---------------------------------------------------------------------------------------------------------
// The feed: notifications (with one row per recipient) and activity logs.
// ---------------------------------------------------------------------------------------------------------

/** A user as the feed stores it (action user, recipients): the fields interface.md names. */
export interface StoredUser {
  userId: string;
  name?: string;
  email?: string;
  [key: string]: unknown;
}

export const notifications = sqliteTable(
  'notifications',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    documentId: text('document_id').notNull(),
    locationId: text('location_id'),
    source: text('source', { enum: NOTIFICATION_SOURCES }).notNull(),
    sourceData: text('source_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    actionUser: text('action_user', { mode: 'json' }).$type<StoredUser>().notNull(),
    headlineTemplate: text('headline_template'),
    headlineData: text('headline_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    body: text('body'),
    resolver: integer('resolver', { mode: 'boolean' }).notNull(),
    contextAccess: text('context_access', { mode: 'json' }).$type<Record<string, string | number>>(),
    timestamp: integer('timestamp').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('notifications_document').on(t.apiKeyId, t.organizationId, t.documentId, t.timestamp, t.id),
    // an organization's notifications by time (the admin UI's feed of an organization, newest first)
    index('notifications_time').on(t.apiKeyId, t.organizationId, t.timestamp, t.id),
    index('notifications_location').on(t.apiKeyId, t.organizationId, t.documentId, t.locationId, t.timestamp, t.id),
    orgRef(t),
  ],
);

/** One row per recipient: who was told, whether they read it; ordered like the notification. */
export const notificationRecipients = sqliteTable(
  'notification_recipients',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    notificationId: text('notification_id').notNull(),
    userId: text('user_id').notNull(),
    documentId: text('document_id').notNull(),
    timestamp: integer('timestamp').notNull(),
    /** Told explicitly (in notifyUsers) rather than through notifyAll: what the MINE channel setting keeps. */
    explicit: integer('explicit', { mode: 'boolean' }).notNull(),
    readAt: integer('read_at'),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.notificationId, t.userId] }),
    index('notification_recipients_user').on(t.apiKeyId, t.organizationId, t.userId, t.timestamp, t.notificationId),
    index('notification_recipients_user_document').on(t.apiKeyId, t.organizationId, t.userId, t.documentId, t.timestamp, t.notificationId),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.notificationId],
      foreignColumns: [notifications.apiKeyId, notifications.organizationId, notifications.id],
    }).onDelete('cascade'),
  ],
);

/** Channel preferences of a user for an organization (documentId '') or one document. */
export const notificationConfigs = sqliteTable(
  'notification_configs',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    documentId: text('document_id').notNull(),
    userId: text('user_id').notNull(),
    inbox: text('inbox', { enum: CHANNEL_VALUES }).notNull(),
    email: text('email', { enum: CHANNEL_VALUES }).notNull(),
    slack: text('slack', { enum: CHANNEL_VALUES }).notNull(),
    /**
     * Which channels this row sets (1 inbox, 2 email, 4 slack): a document's row takes the others from the
     * organization's. Rows written before it set all three.
     */
    channelsSet: integer('channels_set').notNull().default(7),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.organizationId, t.documentId, t.userId] }), orgRef(t)],
);

export const activities = sqliteTable(
  'activities',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    documentId: text('document_id'),
    featureType: text('feature_type', { enum: FEATURE_TYPES }).notNull(),
    actionType: text('action_type').notNull(),
    actionUser: text('action_user', { mode: 'json' }).$type<StoredUser>().notNull(),
    actionUserId: text('action_user_id').notNull(),
    targetEntityId: text('target_entity_id'),
    targetSubEntityId: text('target_sub_entity_id'),
    changes: text('changes', { mode: 'json' }).$type<Record<string, { from?: unknown; to?: unknown }>>(),
    entityData: text('entity_data', { mode: 'json' }).$type<unknown>(),
    entityTargetData: text('entity_target_data', { mode: 'json' }).$type<unknown>(),
    displayMessageTemplate: text('display_message_template'),
    displayMessageTemplateData: text('display_message_template_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    actionIcon: text('action_icon'),
    resolver: integer('resolver', { mode: 'boolean' }).notNull().default(false),
    timestamp: integer('timestamp').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('activities_time').on(t.apiKeyId, t.organizationId, t.timestamp, t.id),
    index('activities_document').on(t.apiKeyId, t.organizationId, t.documentId, t.timestamp, t.id),
    index('activities_target').on(t.apiKeyId, t.organizationId, t.targetEntityId, t.timestamp, t.id),
    index('activities_user').on(t.apiKeyId, t.organizationId, t.actionUserId, t.timestamp, t.id),
    index('activities_feature').on(t.apiKeyId, t.organizationId, t.featureType, t.timestamp, t.id),
    orgRef(t),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Comments, reactions, recordings, and the user-data erasure jobs.
// ---------------------------------------------------------------------------------------------------------

/** Fields of a hosted comment that Hearth stores and returns as given, without acting on them. */
export interface CommentExtra {
  status?: string;
  isDraft?: boolean;
  to?: StoredUser[];
  attachments?: Array<Record<string, unknown>>;
  recorders?: Array<Record<string, unknown>>;
  customList?: Array<Record<string, unknown>>;
  agent?: Record<string, unknown>;
  isCommentResolverUsed?: boolean;
  isCommentTextAvailable?: boolean;
}

export const commentAnnotations = sqliteTable(
  'comment_annotations',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    documentId: text('document_id').notNull(),
    locationId: text('location_id'),
    location: text('location', { mode: 'json' }).$type<Record<string, unknown>>(),
    targetElement: text('target_element', { mode: 'json' }).$type<Record<string, unknown>>(),
    status: text('status', { mode: 'json' }).$type<Record<string, unknown>>(),
    statusId: text('status_id').notNull(),
    priority: text('priority', { mode: 'json' }).$type<unknown>(),
    assignedTo: text('assigned_to', { mode: 'json' }).$type<StoredUser>(),
    context: text('context', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** `public` (everyone with access to the document) or `restricted` (only `visibleToUserIds` and the author). */
    visibility: text('visibility', { enum: COMMENT_VISIBILITIES }).notNull(),
    visibleToUserIds: text('visible_to_user_ids', { mode: 'json' }).$type<string[]>(),
    commentType: text('comment_type'),
    /** A suggestion-mode annotation's suggestion, as given. */
    suggestion: text('suggestion', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdByUserId: text('created_by_user_id').notNull(),
    resolvedByUserId: text('resolved_by_user_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('comment_annotations_document').on(t.apiKeyId, t.organizationId, t.documentId, t.createdAt, t.id),
    // an organization's page in order (without it every page sorted all of the organization's annotations)
    index('comment_annotations_time').on(t.apiKeyId, t.organizationId, t.createdAt, t.id),
    orgRef(t),
  ],
);

export const comments = sqliteTable(
  'comments',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    annotationId: text('annotation_id').notNull(),
    id: integer('id').notNull(),
    fromUser: text('from_user', { mode: 'json' }).$type<StoredUser>().notNull(),
    fromUserId: text('from_user_id').notNull(),
    text: text('text'),
    html: text('html'),
    taggedUserContacts: text('tagged_user_contacts', { mode: 'json' }).$type<unknown[]>(),
    mentionedUserIds: text('mentioned_user_ids', { mode: 'json' }).$type<string[]>().notNull(),
    context: text('context', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** The hosted comment's fields Hearth keeps as given (attachments, isDraft, to, …); null when none was. */
    extra: text('extra', { mode: 'json' }).$type<CommentExtra>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.annotationId, t.id] }),
    index('comments_user').on(t.apiKeyId, t.organizationId, t.fromUserId, t.createdAt),
    // a thread's first and last comment (threadTexts) without sorting the thread
    index('comments_thread_time').on(t.apiKeyId, t.organizationId, t.annotationId, t.createdAt, t.id),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.annotationId],
      foreignColumns: [commentAnnotations.apiKeyId, commentAnnotations.organizationId, commentAnnotations.id],
    }).onDelete('cascade'),
  ],
);

/** When a user last read an annotation (for unread counts). */
export const commentReads = sqliteTable(
  'comment_reads',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    annotationId: text('annotation_id').notNull(),
    userId: text('user_id').notNull(),
    readAt: integer('read_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.annotationId, t.userId] }),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.annotationId],
      foreignColumns: [commentAnnotations.apiKeyId, commentAnnotations.organizationId, commentAnnotations.id],
    }).onDelete('cascade'),
  ],
);

export const reactions = sqliteTable(
  'reactions',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    annotationId: text('annotation_id').notNull(),
    commentId: integer('comment_id').notNull(),
    icon: text('icon').notNull(),
    fromUser: text('from_user', { mode: 'json' }).$type<StoredUser>().notNull(),
    fromUserId: text('from_user_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    uniqueIndex('reactions_once').on(t.apiKeyId, t.organizationId, t.annotationId, t.commentId, t.fromUserId, t.icon),
    index('reactions_user').on(t.apiKeyId, t.organizationId, t.fromUserId, t.createdAt),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.annotationId, t.commentId],
      foreignColumns: [comments.apiKeyId, comments.organizationId, comments.annotationId, comments.id],
    }).onDelete('cascade'),
  ],
);

export const recordings = sqliteTable(
  'recordings',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    documentId: text('document_id').notNull(),
    recordingType: text('recording_type').notNull(),
    mode: text('mode').notNull(),
    displayName: text('display_name').notNull().default(''),
    durationMs: integer('duration_ms').notNull(),
    fromUser: text('from_user', { mode: 'json' }).$type<StoredUser>().notNull(),
    fromUserId: text('from_user_id').notNull(),
    latestVersion: integer('latest_version').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.id] }),
    index('recordings_document').on(t.apiKeyId, t.organizationId, t.documentId, t.createdAt, t.id),
    index('recordings_time').on(t.apiKeyId, t.organizationId, t.createdAt, t.id),
    index('recordings_user').on(t.apiKeyId, t.organizationId, t.fromUserId, t.createdAt),
    orgRef(t),
  ],
);

/** Attachment bytes live under DATA_DIR/attachments/<storageKey>; the row holds what describes them. */
export const recordingAttachments = sqliteTable(
  'recording_attachments',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    recordingId: text('recording_id').notNull(),
    attachmentId: integer('attachment_id').notNull(),
    version: integer('version').notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    mimeType: text('mime_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.organizationId, t.recordingId, t.attachmentId] }),
    uniqueIndex('recording_attachments_storage').on(t.storageKey),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.recordingId],
      foreignColumns: [recordings.apiKeyId, recordings.organizationId, recordings.id],
    }).onDelete('cascade'),
  ],
);

export const USER_DATA_JOB_STATES = ['pending', 'in_progress', 'completed', 'failed'] as const;

/** Erasure of one user's personal data in one API key (the hosted GDPR delete), run in the background. */
export const userDataJobs = sqliteTable(
  'user_data_jobs',
  {
    id: text('id').primaryKey(),
    apiKeyId: apiKeyRef(),
    userId: text('user_id').notNull(),
    status: text('status', { enum: USER_DATA_JOB_STATES }).notNull(),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    completedAt: integer('completed_at'),
    /** Until when the instance that took it holds it (ms); past that, another instance may take it over (a cluster's leases). */
    leaseUntil: integer('lease_until'),
  },
  (t) => [index('user_data_jobs_status').on(t.status, t.createdAt)],
);

// ---------------------------------------------------------------------------------------------------------
// Collaborative documents: one Y.Doc per (API key, organization, document, editor), stored as a merged
// snapshot plus the updates appended since.
// ---------------------------------------------------------------------------------------------------------

/** The kinds of collaborative content (shared/schemas/crdt.ts's, the API's own list). */
export const CRDT_TYPES = CRDT_DATA_TYPES;

export const crdtDocuments = sqliteTable(
  'crdt_documents',
  {
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    documentId: text('document_id').notNull(),
    editorId: text('editor_id').notNull(),
    type: text('type', { enum: CRDT_TYPES }).notNull(),
    contentKey: text('content_key').notNull(),
    /**
     * What the room's first websocket client left unsaid (bits: 1 `type`, 2 `contentKey`, server/crdt/content.ts):
     * `type` and `contentKey` hold the defaults until the first content a client writes shows the real ones.
     */
    infer: integer('infer').notNull().default(0),
    snapshot: blob('snapshot', { mode: 'buffer' }),
    updateCount: integer('update_count').notNull().default(0),
    lastUpdatedBy: text('last_updated_by'),
    compactedAt: integer('compacted_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.organizationId, t.documentId, t.editorId] })],
);

export const crdtUpdates = sqliteTable(
  'crdt_updates',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id').notNull(),
    documentId: text('document_id').notNull(),
    editorId: text('editor_id').notNull(),
    update: blob('update', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('crdt_updates_doc').on(t.apiKeyId, t.organizationId, t.documentId, t.editorId, t.seq),
    foreignKey({
      columns: [t.apiKeyId, t.organizationId, t.documentId, t.editorId],
      foreignColumns: [crdtDocuments.apiKeyId, crdtDocuments.organizationId, crdtDocuments.documentId, crdtDocuments.editorId],
    }).onDelete('cascade'),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Webhooks: per API key an advanced configuration and its endpoints; a durable outbox of events written in the
// transaction of the change; one delivery per (event, target) with its retry state; every attempt recorded.
// ---------------------------------------------------------------------------------------------------------

export const webhookConfigs = sqliteTable('webhook_configs', {
  apiKeyId: text('api_key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  isEnabled: integer('is_enabled', { mode: 'boolean' }).notNull(),
  encryptData: integer('encrypt_data', { mode: 'boolean' }).notNull(),
  encodeData: integer('encode_data', { mode: 'boolean' }).notNull(),
  publicKey: text('public_key').notNull(),
  enableDataProtection: integer('enable_data_protection', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    apiKeyId: apiKeyRef(),
    url: text('url').notNull(),
    description: text('description').notNull(),
    filterTypes: text('filter_types', { mode: 'json' }).$type<string[] | null>(),
    channels: text('channels', { mode: 'json' }).$type<string[] | null>(),
    disabled: integer('disabled', { mode: 'boolean' }).notNull(),
    /** Why Hearth disabled it (410 Gone, failing for days); null when a caller did. */
    disabledReason: text('disabled_reason'),
    rateLimit: integer('rate_limit'),
    uid: text('uid'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    /** The `whsec_` signing secret, encrypted; after a rotation the previous one also signs until it expires. */
    secretEnc: text('secret_enc').notNull(),
    previousSecretEnc: text('previous_secret_enc'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    /** Start of the current run of failed attempts (null after a success). */
    failingSince: integer('failing_since'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhook_endpoints_key').on(t.apiKeyId, t.createdAt, t.id), uniqueIndex('webhook_endpoints_uid').on(t.apiKeyId, t.uid)],
);

export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    /** The Standard Webhooks message id (`msg_…`): the `webhook-id` of every delivery of this event. */
    id: text('id').primaryKey(),
    apiKeyId: apiKeyRef(),
    type: text('type').notNull(),
    organizationId: text('organization_id'),
    documentId: text('document_id'),
    /** The advanced payload (without webhookId), or null while a debounced event is still gathering changes. */
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    /** The basic-webhook payload, when the event has a basic form. */
    basicPayload: text('basic_payload', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    /** Debounced events (CRDT changes): one pending event per key. */
    dedupeKey: text('dedupe_key'),
    /**
     * An event addressed to one endpoint (the admin UI's test event): delivered to it alone, whatever its type and
     * channel filters, and to no other endpoint or basic URL. Null: every live endpoint that takes it.
     */
    targetEndpointId: text('target_endpoint_id'),
    availableAt: integer('available_at').notNull(),
    dispatchedAt: integer('dispatched_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('webhook_events_pending').on(t.availableAt).where(sql`${t.dispatchedAt} IS NULL`),
    uniqueIndex('webhook_events_dedupe').on(t.apiKeyId, t.dedupeKey).where(sql`${t.dispatchedAt} IS NULL AND ${t.dedupeKey} IS NOT NULL`),
    index('webhook_events_key').on(t.apiKeyId, t.createdAt),
  ],
);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

// Delivery state (webhook_deliveries, webhook_attempts) lives in its own file: delivery-schema.ts, repos/webhook-deliveries.ts.

// ---------------------------------------------------------------------------------------------------------
// AI: agents and their executions, workflow definitions, and the judgments suggestions are drawn from.
// ---------------------------------------------------------------------------------------------------------

export const agents = sqliteTable(
  'agents',
  {
    apiKeyId: apiKeyRef(),
    id: text('id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** Incremented by every update; executions record the version they ran. */
    version: integer('version').notNull(),
    model: text('model').notNull(),
    instructions: text('instructions').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.id] }), index('agents_created').on(t.apiKeyId, t.createdAt, t.id)],
);

/** One run of an agent. Kept when the agent is deleted (name and version are copied in). */
export const agentExecutions = sqliteTable(
  'agent_executions',
  {
    apiKeyId: apiKeyRef(),
    id: text('id').notNull(),
    agentId: text('agent_id').notNull(),
    agentName: text('agent_name').notNull(),
    agentVersion: integer('agent_version').notNull(),
    organizationId: text('organization_id'),
    documentId: text('document_id'),
    editorId: text('editor_id'),
    status: text('status', { enum: EXECUTION_STATUSES }).notNull(),
    message: text('message').notNull(),
    trigger: text('trigger').notNull(),
    llmModel: text('llm_model').notNull(),
    /** The text given to the run (null when it reads a document's CRDT content). */
    input: text('input'),
    ranBy: text('ran_by', { mode: 'json' }).$type<{ userId: string; name?: string; email?: string }>(),
    startedAt: integer('started_at').notNull(),
    completedAt: integer('completed_at'),
    durationMs: integer('duration_ms'),
    tokenUsage: text('token_usage', { mode: 'json' }).$type<{ promptTokens: number; completionTokens: number; totalTokens: number }>(),
    findings: text('findings', { mode: 'json' }).$type<
      Array<{ quote: string | null; comment: string; severity: 'high' | 'medium' | 'low'; annotationId: string | null }>
    >(),
    /** Until when the instance running it holds it (ms), renewed while it runs; past that, its holder is gone and it ends as failed. */
    leaseUntil: integer('lease_until'),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.id] }),
    index('agent_executions_started').on(t.apiKeyId, t.startedAt, t.id),
    index('agent_executions_running').on(t.status).where(sql`${t.status} = 'running'`),
  ],
);

export const workflowDefinitions = sqliteTable(
  'workflow_definitions',
  {
    apiKeyId: apiKeyRef(),
    definitionId: text('definition_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    version: integer('version').notNull(),
    scopeLevel: text('scope_level', { enum: ['apiKey', 'organization', 'document'] }).notNull(),
    organizationId: text('organization_id'),
    documentId: text('document_id'),
    /** nodes, edges, groups, triggers, tags, custom and the compiled view, as given (JSON). */
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** The definition's webhook secret, encrypted with the master key (never returned). */
    webhookSecretEnc: text('webhook_secret_enc'),
    /** `deleted` is a tombstone: get answers NOT_FOUND, and the id stays taken until purged. */
    status: text('status', { enum: ['active', 'deleted'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.definitionId] })],
);

/**
 * A reviewer's judgment, recorded from review activity (comments, status changes, reactions, agent runs).
 * `subject` is what was judged (the annotation's text, the agent's input), `reasoning` why; both are indexed
 * for full-text search in `judgments_fts` (FTS5, kept in step by triggers in the migration), with the scope terms.
 */
export const judgments = sqliteTable(
  'judgments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    apiKeyId: apiKeyRef(),
    organizationId: text('organization_id'),
    documentId: text('document_id'),
    decision: text('decision', { enum: JUDGMENT_DECISION_VALUES }).notNull(),
    reviewerId: text('reviewer_id').notNull(),
    reviewerName: text('reviewer_name'),
    subject: text('subject').notNull(),
    reasoning: text('reasoning'),
    /** Search terms naming the judgment's API key, organization and document (`scopeTerms`), indexed with the text so a scoped search intersects in the index. */
    scopeTerms: text('scope_terms').notNull(),
    /** `comment`, `annotation_status`, `reaction` or `agent`, and the id of what it came from. */
    source: text('source').notNull(),
    sourceId: text('source_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('judgments_scope').on(t.apiKeyId, t.organizationId, t.documentId, t.createdAt), index('judgments_created').on(t.apiKeyId, t.createdAt, t.seq)],
);

/**
 * The master key this database's secrets are encrypted under, recognized by a digest derived from it (never the key,
 * which lives in a file: DATA_DIR/master.key or MASTER_KEY_FILE). One row; db/key-check.ts compares it at every
 * open, so that a server (or a cluster's next instance) refuses a key that cannot read the secrets instead of
 * failing on them later. It belongs to this database's key: exports leave it out, an import writes the target's.
 */
export const masterKeyCheck = sqliteTable('master_key_check', {
  id: integer('id').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  createdAt: integer('created_at').notNull().default(now),
});
