import { randomInt } from 'node:crypto';
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { notificationsAddInput, notificationsDeleteInput, notificationsGetInput, notificationsUpdateInput } from '../../shared/schemas/feed.ts';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { paginate } from '../db/pagination.ts';
import { connectionOf } from '../db/prepared.ts';
import { notificationConfigs, notificationRecipients, notifications, type StoredUser } from '../db/schema.ts';
import { invalid, notFound } from '../errors.ts';
import { escapeHtml } from '../http/html.ts';
import { createAccessResolverIn } from './access.ts';
import { mailSender } from './apikeys.ts';
import { emitEvent } from '../webhooks/outbox.ts';
import { findDocumentIn, insertDocumentIn } from './documents.ts';
import { ensureOrganizationIn } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { contextAccessOfIn } from './permissions.ts';
import { findUserIn, upsertUserIn } from './users.ts';
import { readPageToken } from './paging.ts';
import { readNotificationPage, userKey, type NotificationItem } from './notification-reads.ts';
import { keyed } from './keyed.ts';

export { userKey };

type NotificationRow = typeof notifications.$inferSelect;

type AddInput = z.output<typeof notificationsAddInput>;
type Channel = 'ALL' | 'MINE' | 'NONE';

/** 16-digit numeric ids, like the hosted service's. */
const newNotificationId = () => `${randomInt(1, 10)}${String(randomInt(0, 1e8)).padStart(8, '0')}${String(randomInt(0, 1e7)).padStart(7, '0')}`;

/** `{actionUser}` and other single-brace variables of a headline, filled from its template data. */
export function renderTemplate(template: string, data: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => {
    const value = data[name];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    if (value && typeof value === 'object' && 'name' in value && typeof value.name === 'string') return value.name;
    return match;
  });
}

// notifications/add writes with plain SQL run in the caller's transaction (compiled once by the statement cache of
// db/client.ts): building each query with drizzle cost more than the rest of the call. The encodings are drizzle's
// for these columns: JSON columns as JSON text (NULL for null), booleans as 1 / 0.
const NOTIFICATION_EXISTS = 'SELECT 1 FROM notifications WHERE api_key_id = ? AND organization_id = ? AND id = ?';
const INSERT_NOTIFICATION =
  'INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_RECIPIENT =
  'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)';
/** The recipients' channel settings, the organization's ('') and the document's; the user ids as one JSON array. */
const CHANNELS =
  "SELECT user_id AS userId, document_id AS documentId, inbox, email, slack, channels_set AS channelsSet FROM notification_configs WHERE api_key_id = ? AND organization_id = ? AND user_id IN (SELECT value FROM json_each(?)) AND document_id IN ('', ?)";

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

function insertNotificationRow(tx: Db, row: NotificationRow) {
  connectionOf(tx)
    .prepare(INSERT_NOTIFICATION)
    .run(
      row.apiKeyId,
      row.organizationId,
      row.id,
      row.documentId,
      row.locationId,
      row.source,
      jsonOrNull(row.sourceData),
      JSON.stringify(row.actionUser),
      row.headlineTemplate,
      jsonOrNull(row.headlineData),
      row.body,
      row.resolver ? 1 : 0,
      jsonOrNull(row.contextAccess),
      row.timestamp,
    );
}

/** The stored channel settings of `userIds`, the organization's (documentId '') and the document's. */
type ChannelRow = { documentId: string; inbox: Channel; email: Channel; slack: Channel; channelsSet: number };
type ChannelConfig = { inbox: Channel; email: Channel; slack: Channel };
const CHANNEL_BITS = { inbox: 1, email: 2, slack: 4 } as const;
const DEFAULT_CONFIG: ChannelConfig = { inbox: 'ALL', email: 'ALL', slack: 'ALL' };

/**
 * A user's settings for one document: each channel the document's row sets, else the organization's row's, else
 * ALL (a document's setting of the inbox alone leaves its e-mail as the organization has it).
 */
function resolveChannels(organization: ChannelRow | undefined, document: ChannelRow | undefined): ChannelConfig {
  const pick = (channel: keyof ChannelConfig) =>
    document && document.channelsSet & CHANNEL_BITS[channel] ? document[channel] : organization && organization.channelsSet & CHANNEL_BITS[channel] ? organization[channel] : 'ALL';
  return { inbox: pick('inbox'), email: pick('email'), slack: pick('slack') };
}

/** Each user's settings in the organization and, resolved over them, for one of its documents. */
export function userChannelsIn(tx: Db, apiKeyId: string, organizationId: string, documentId: string, userIds: string[]) {
  const rows = userIds.length
    ? connectionOf(tx).prepare<unknown[], ChannelRow & { userId: string }>(CHANNELS).all(apiKeyId, organizationId, JSON.stringify(userIds), documentId)
    : [];
  const byUser = new Map<string, { organization?: ChannelRow; document?: ChannelRow }>();
  for (const row of rows) {
    const entry = byUser.get(row.userId) ?? {};
    if (row.documentId === '') entry.organization = row;
    else entry.document = row;
    byUser.set(row.userId, entry);
  }
  return (userId: string) => {
    const entry = byUser.get(userId);
    return { organization: resolveChannels(entry?.organization, undefined), document: resolveChannels(entry?.organization, entry?.document) };
  };
}

function channelsOf(tx: Db, apiKeyId: string, organizationId: string, documentId: string, userIds: string[]) {
  const of = userChannelsIn(tx, apiKeyId, organizationId, documentId, userIds);
  return (userId: string) => of(userId).document;
}

const wants = (channel: Channel, explicit: boolean) => channel === 'ALL' || (channel === 'MINE' && explicit);

/**
 * /v2/notifications/add. Recipients: with `notifyAll` (default) everyone who can open the document (from the
 * access service) plus `notifyUsers`; without it `notifyUsers` only. `verifyUserPermissions` drops those without
 * access. Each recipient's inbox setting (ALL / MINE = only when named in notifyUsers / NONE) decides whether it
 * lands in their inbox, and the e-mail setting whether they are mailed (when the key's e-mail service is on).
 * A given `notificationId` makes the call idempotent.
 */
export function addNotification(app: AppContext, apiKey: ApiKeyRow, input: AddInput): { created: boolean; id: string } {
  const resolverMode = input.isNotificationResolverUsed ?? false;
  if (!resolverMode) {
    if (input.displayHeadlineMessageTemplate === undefined) throw invalid('displayHeadlineMessageTemplate is required unless isNotificationResolverUsed is true.');
    if (input.displayBodyMessage === undefined) throw invalid('displayBodyMessage is required unless isNotificationResolverUsed is true.');
  }
  const result = transaction(app.db, (tx) => insertNotificationIn(app, tx, apiKey, input));
  if (result.mails > 0) app.mail.flush();
  return { created: result.created, id: result.id };
}

/**
 * The write of addNotification in the caller's transaction (comments use it for mentions). Returns how many
 * e-mails it queued: the caller flushes the mailer after its commit.
 */
export function insertNotificationIn(app: AppContext, tx: Db, apiKey: ApiKeyRow, input: AddInput): { created: boolean; id: string; mails: number } {
  const resolverMode = input.isNotificationResolverUsed ?? false;
  ensureOrganizationIn(tx, apiKey.id, input.organizationId, input.createOrganization ?? false);
  if (!findDocumentIn(tx, apiKey.id, input.organizationId, input.documentId)) {
    if (!input.createDocument) throw notFound(`Document does not exist: ${input.documentId}. Pass createDocument: true to create it.`);
    insertDocumentIn(tx, apiKey, input.organizationId, { documentId: input.documentId });
  }
  const id = input.notificationId ?? newNotificationId();
  const existing = connectionOf(tx).prepare(NOTIFICATION_EXISTS).get(apiKey.id, input.organizationId, id);
  if (existing) return { created: false, id, mails: 0 };

  const access = createAccessResolverIn(tx, apiKey.id, input.organizationId);
  const explicit = new Set(input.notifyUsers.map((u) => u.userId));
  const candidates = new Set(explicit);
  if (input.notifyAll ?? true) {
    for (const userId of access.documentUsers(input.documentId).keys()) if (userId !== input.actionUser.userId) candidates.add(userId);
  }
  let recipients = [...candidates];
  if (input.verifyUserPermissions) recipients = recipients.filter((userId) => access.document(userId, input.documentId).access);
  const required = input.context?.access;
  if (required) {
    // context permissions (permissions add / generate_token `context`): every key-value of the notification must be granted
    recipients = recipients.filter((userId) => {
      const granted = contextAccessOfIn(tx, apiKey.id, userId);
      return Object.entries(required).every(([key, value]) => granted.get(key)?.includes(String(value)) ?? false);
    });
  }

  // Resolver mode keeps ids only: the caller's own infrastructure supplies names at read time.
  const strip = (user: { userId: string; name?: string | undefined; email?: string | undefined }): StoredUser =>
    resolverMode ? { userId: user.userId } : Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as StoredUser;
  if (!resolverMode) for (const user of [input.actionUser, ...input.notifyUsers]) upsertUserIn(tx, apiKey.id, user);

  const timestamp = Date.now();
  const headlineData = input.displayHeadlineMessageTemplateData
    ? resolverMode
      ? Object.fromEntries(Object.entries(input.displayHeadlineMessageTemplateData).filter(([k]) => k !== 'actionUser' && k !== 'recipientUser'))
      : input.displayHeadlineMessageTemplateData
    : null;
  const row: NotificationRow = {
      apiKeyId: apiKey.id,
      organizationId: input.organizationId,
      id,
      documentId: input.documentId,
      locationId: input.locationId ?? null,
      source: input.notificationSource ?? 'custom',
      sourceData: input.notificationSourceData ?? null,
      actionUser: strip(input.actionUser),
      headlineTemplate: input.displayHeadlineMessageTemplate ?? null,
      headlineData,
      body: input.displayBodyMessage ?? null,
      resolver: resolverMode,
      contextAccess: input.context?.access ?? null,
      timestamp,
  };
  insertNotificationRow(tx, row);

  const channels = channelsOf(tx, apiKey.id, input.organizationId, input.documentId, recipients);
  const inbox: Array<{ userId: string; readAt: number | null }> = [];
  const insertRecipient = connectionOf(tx).prepare(INSERT_RECIPIENT);
  let mails = 0;
  for (const userId of recipients) {
    const setting = channels(userId);
    const named = explicit.has(userId);
    if (wants(setting.inbox, named)) {
      inbox.push({ userId, readAt: null });
      insertRecipient.run(apiKey.id, input.organizationId, id, userId, input.documentId, timestamp, named ? 1 : 0);
    }
    if (!resolverMode && apiKey.settings.useEmailService && wants(setting.email, named)) {
      const email = findUserIn(tx, apiKey.id, userId)?.email;
      if (!email) continue;
      const data = { ...(input.displayHeadlineMessageTemplateData ?? {}), actionUser: input.actionUser };
      app.mail.enqueue(tx, {
        kind: 'notification',
        apiKeyId: apiKey.id,
        to: email,
        from: mailSender(apiKey),
        subject: renderTemplate(input.displayHeadlineMessageTemplate ?? '', data),
        text: input.displayBodyMessage ?? '',
        html: `<p>${escapeHtml(input.displayBodyMessage ?? '')}</p>`,
      });
      mails++;
    }
  }
  emitEvent(tx, { apiKeyId: apiKey.id, type: 'notification.add', organizationId: input.organizationId, documentId: row.documentId, actionUser: row.actionUser, actionType: 'add', source: 'notification', data: () => ({ notification: describeNotification(row, inbox) }) });
  return { created: true, id, mails };
}

/**
 * A notification as the notification.add event describes it; /v2/notifications/get answers the same objects,
 * built from its raw rows by notification-reads.ts (test/api/notifications/get-equivalence.test.ts compares).
 */
export function describeNotification(row: NotificationRow, recipients: Array<{ userId: string; readAt: number | null }>): NotificationItem {
  return {
    id: row.id,
    notificationSource: row.source,
    notificationSourceData: row.sourceData ?? {},
    actionUser: row.actionUser,
    displayHeadlineMessageTemplate: row.headlineTemplate,
    displayHeadlineMessageTemplateData: row.headlineData ?? {},
    displayBodyMessage: row.body,
    isNotificationResolverUsed: row.resolver,
    locationId: row.locationId,
    context: row.contextAccess ? { access: row.contextAccess } : null,
    metadata: { apiKey: row.apiKeyId, documentId: row.documentId, organizationId: row.organizationId },
    notifyUsers: Object.fromEntries(recipients.map((r) => [userKey(r.userId), true])),
    notifyUsersByUserId: Object.fromEntries(recipients.map((r) => [r.userId, true])),
    readByUserIds: recipients.filter((r) => r.readAt !== null).map((r) => r.userId),
    timestamp: row.timestamp,
  };
}

/**
 * /v2/notifications/get: by document (and location) or by recipient (and document), newest first unless
 * `order: asc`, keyset-paginated on (timestamp, id) over an index that matches each filter combination.
 */
export function getNotifications(app: AppContext, apiKeyId: string, input: z.output<typeof notificationsGetInput>) {
  if (!input.documentId && !input.userId) throw invalid('Pass documentId or userId.');
  const scope = { op: 'notifications/get', apiKeyId, o: input.organizationId, d: input.documentId, l: input.locationId, u: input.userId, ids: input.notificationIds, order: input.order };
  const cursor = readPageToken(app, scope, input.pageToken, ['number', 'string']);
  const items = readNotificationPage(app.sqlite, apiKeyId, input, cursor);
  return paginate(items, input.pageSize, (item) => [item.timestamp, item.id], app.pageTokens, scope);
}

type Outcomes = Record<string, { success: boolean; message: string }>;

function matching(tx: Db, apiKeyId: string, input: z.output<typeof notificationsDeleteInput>): string[] {
  const n = notifications;
  const conditions: SQL[] = [eq(n.apiKeyId, apiKeyId), eq(n.organizationId, input.organizationId)];
  if (input.documentId) conditions.push(eq(n.documentId, input.documentId));
  if (input.locationId) conditions.push(eq(n.locationId, input.locationId));
  if (input.notificationIds) conditions.push(inArray(n.id, input.notificationIds));
  if (input.userId) {
    const told = tx
      .select({ id: notificationRecipients.notificationId })
      .from(notificationRecipients)
      .where(and(eq(notificationRecipients.apiKeyId, apiKeyId), eq(notificationRecipients.organizationId, input.organizationId), eq(notificationRecipients.userId, input.userId)));
    conditions.push(inArray(n.id, told));
  }
  return tx.select({ id: n.id }).from(n).where(and(...conditions)).all().map((r) => r.id);
}

/** /v1/notifications/delete: the notifications matching every filter given; named ids not matched are `success: false`. */
export function deleteNotifications(app: AppContext, apiKeyId: string, input: z.output<typeof notificationsDeleteInput>): Outcomes {
  return transaction(app.db, (tx) => {
    const ids = matching(tx, apiKeyId, input);
    for (let i = 0; i < ids.length; i += 500) {
      tx.delete(notifications).where(and(eq(notifications.apiKeyId, apiKeyId), eq(notifications.organizationId, input.organizationId), inArray(notifications.id, ids.slice(i, i + 500)))).run();
    }
    const out: Outcomes = keyed();
    for (const id of ids) out[id] = { success: true, message: 'Notification deleted.' };
    for (const id of input.notificationIds ?? []) if (!out[id]) out[id] = { success: false, message: 'Failed to delete notification.' };
    return out;
  });
}

/** /v2/notifications/update: content edits and read state per user. */
export function updateNotifications(app: AppContext, apiKeyId: string, input: z.output<typeof notificationsUpdateInput>): Outcomes {
  return transaction(app.db, (tx) => {
    const out: Outcomes = keyed();
    for (const item of input.notifications) {
      const where = and(eq(notifications.apiKeyId, apiKeyId), eq(notifications.organizationId, input.organizationId), eq(notifications.id, item.id));
      const row = tx.select().from(notifications).where(where).get();
      if (!row) {
        out[item.id] = { success: false, message: 'Failed to update notification.' };
        continue;
      }
      tx.update(notifications)
        .set({
          actionUser: item.actionUser && !row.resolver ? item.actionUser : row.actionUser,
          headlineTemplate: item.displayHeadlineMessageTemplate ?? row.headlineTemplate,
          headlineData: item.displayHeadlineMessageTemplateData ?? row.headlineData,
          body: item.displayBodyMessage ?? row.body,
          sourceData: item.notificationSourceData ?? row.sourceData,
        })
        .where(where)
        .run();
      const recipient = (userIds: string[]) =>
        and(eq(notificationRecipients.apiKeyId, apiKeyId), eq(notificationRecipients.organizationId, input.organizationId), eq(notificationRecipients.notificationId, item.id), inArray(notificationRecipients.userId, userIds));
      if (item.readByUserIds?.length) tx.update(notificationRecipients).set({ readAt: Date.now() }).where(recipient(item.readByUserIds)).run();
      if (item.unreadByUserIds?.length) tx.update(notificationRecipients).set({ readAt: null }).where(recipient(item.unreadByUserIds)).run();
      out[item.id] = { success: true, message: 'Notification updated.' };
    }
    return out;
  });
}

/** /v2/notifications/config/get: the user's settings per document (falling back to the organization's), then the organization's. */
export function getNotificationConfig(app: AppContext, apiKeyId: string, input: { organizationId: string; userId: string; documentIds?: string[] | undefined; getOrganizationConfig?: boolean | undefined }) {
  const rows = app.db
    .select()
    .from(notificationConfigs)
    .where(and(eq(notificationConfigs.apiKeyId, apiKeyId), eq(notificationConfigs.organizationId, input.organizationId), eq(notificationConfigs.userId, input.userId)))
    .all();
  const byDocument = new Map(rows.map((r) => [r.documentId, r]));
  const organization = resolveChannels(byDocument.get(''), undefined);
  const metadata = (documentId: string | null) => ({ organizationId: input.organizationId, apiKey: apiKeyId, documentId, userId: input.userId });
  const out = (input.documentIds ?? []).map((documentId) => ({ config: resolveChannels(byDocument.get(''), byDocument.get(documentId)), metadata: metadata(documentId) }));
  if (input.getOrganizationConfig || !input.documentIds?.length) out.push({ config: organization, metadata: metadata(null) });
  return out;
}

/** /v2/notifications/config/set: for each user, the organization's settings, or each given document's. */
export function setNotificationConfig(app: AppContext, apiKeyId: string, input: { organizationId: string; userIds: string[]; documentIds?: string[] | undefined; config: { inbox?: Channel | undefined; email?: Channel | undefined; slack?: Channel | undefined } }) {
  if (!input.config.inbox && !input.config.email && !input.config.slack) throw invalid('config must set at least one of inbox, email or slack.');
  return transaction(app.db, (tx) => {
    ensureOrganizationIn(tx, apiKeyId, input.organizationId, false);
    const documents = input.documentIds?.length ? input.documentIds : [''];
    const out: Array<{ success: boolean; userId: string; documentId: string | null; message: string }> = [];
    for (const userId of new Set(input.userIds)) {
      for (const documentId of documents) {
        const where = and(eq(notificationConfigs.apiKeyId, apiKeyId), eq(notificationConfigs.organizationId, input.organizationId), eq(notificationConfigs.documentId, documentId), eq(notificationConfigs.userId, userId));
        // the channels named are set on this row; the others keep what the row had (none: the organization's, or ALL)
        const current = tx.select().from(notificationConfigs).where(where).get() ?? { ...DEFAULT_CONFIG, channelsSet: 0 };
        const given = input.config;
        const next = {
          inbox: given.inbox ?? current.inbox,
          email: given.email ?? current.email,
          slack: given.slack ?? current.slack,
          channelsSet: current.channelsSet | (given.inbox ? CHANNEL_BITS.inbox : 0) | (given.email ? CHANNEL_BITS.email : 0) | (given.slack ? CHANNEL_BITS.slack : 0),
        };
        tx.insert(notificationConfigs)
          .values({ apiKeyId, organizationId: input.organizationId, documentId, userId, ...next, updatedAt: Date.now() })
          .onConflictDoUpdate({ target: [notificationConfigs.apiKeyId, notificationConfigs.organizationId, notificationConfigs.documentId, notificationConfigs.userId], set: { ...next, updatedAt: Date.now() } })
          .run();
        out.push({ success: true, userId, documentId: documentId || null, message: 'User config set successfully.' });
      }
    }
    return out;
  });
}
