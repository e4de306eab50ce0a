import { currentTime } from '../clock.ts';
import { randomInt } from 'node:crypto';
import type { z } from 'zod';
import type { notificationsAddInput, notificationsDeleteInput, notificationsGetInput, notificationsUpdateInput } from '../../shared/schemas/feed.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { Storage } from '../db/repos/index.ts';
import {
  userKey,
  type ChannelRow,
  type ChannelSettings,
  type NewRecipient,
  type NotificationItem,
  type NotificationRow,
  type StoredUser,
} from '../db/repos/notifications.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid, notFound } from '../errors.ts';
import { escapeHtml } from '../http/html.ts';
import { admitMailRecipients, type MailLimitDeps } from '../mail/limits.ts';
import type { Mailer, OutgoingMail } from '../mail/mailer.ts';
import { createAccessResolver, documentMemberships, type AccessResolver } from './access.ts';
import { mailSender } from './apikeys.ts';
import { emitEvent, type Subscribers } from '../webhooks/outbox.ts';
import { insertDocument } from './documents.ts';
import { ensureOrganization } from './organizations.ts';
import type { ApiKeyRow } from './types.ts';
import { contextAccessOfUser } from './permissions.ts';
import { upsertUsers } from './users.ts';
import { readPageToken } from './paging.ts';
import { keyed } from './keyed.ts';

export { userKey };
export type { NotificationItem, NotificationRow };

type AddInput = z.output<typeof notificationsAddInput>;
type Channel = 'ALL' | 'MINE' | 'NONE';
type Deps = { storage: Storage };
/** The access rules one batch of the resolver answers with. */
type AccessRules = Parameters<Parameters<AccessResolver['batch']>[0]>[0];
/** What notifications/add uses: storage, and the mailer (its outbox is written in the unit of work, relayed after). */
type AddDeps = Deps & MailLimitDeps & { mail: Pick<Mailer, 'queue' | 'flush'> };
/**
 * What the write of a notification uses inside the caller's unit of work (the caller flushes the mailer), and the
 * limits of how many it may mail (server/mail/limits.ts).
 */
type InsertDeps = Deps & MailLimitDeps & { mail: Pick<Mailer, 'queue'> };

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

type ChannelConfig = { inbox: Channel; email: Channel; slack: Channel };
const CHANNEL_BITS = { inbox: 1, email: 2, slack: 4 } as const;
const DEFAULT_CONFIG: ChannelConfig = { inbox: 'ALL', email: 'ALL', slack: 'ALL' };

/**
 * A user's settings for one document: each channel the document's row sets, else the organization's row's, else
 * ALL (a document's setting of the inbox alone leaves its e-mail as the organization has it).
 */
function resolveChannels(organization: ChannelRow | undefined, document: ChannelRow | undefined): ChannelConfig {
  const pick = (channel: keyof ChannelConfig) =>
    document && document.channelsSet & CHANNEL_BITS[channel]
      ? document[channel]
      : organization && organization.channelsSet & CHANNEL_BITS[channel]
        ? organization[channel]
        : 'ALL';
  return { inbox: pick('inbox'), email: pick('email'), slack: pick('slack') };
}

/** Each user's settings in the organization and, resolved over them, for one of its documents, from their stored rows. */
function channelsByUser(rows: readonly ChannelRow[]) {
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

/** Each user's settings in the organization and, resolved over them, for one of its documents. */
export async function userChannels(deps: Deps, scope: TenantScope, organizationId: string, documentId: string, userIds: string[]) {
  return channelsByUser(await deps.storage.notifications.channelRows(scope, organizationId, documentId, userIds));
}

const wants = (channel: Channel, explicit: boolean) => channel === 'ALL' || (channel === 'MINE' && explicit);

/**
 * /v2/notifications/add. Recipients: with `notifyAll` (default) everyone who can open the document (from the
 * access service) plus `notifyUsers`; without it `notifyUsers` only. `verifyUserPermissions` drops those without
 * access. Each recipient's inbox setting (ALL / MINE = only when named in notifyUsers / NONE) decides whether it
 * lands in their inbox, and the e-mail setting whether they are mailed (when the key's e-mail service is on).
 * A given `notificationId` makes the call idempotent.
 */
export async function addNotification(
  deps: AddDeps,
  scope: TenantScope,
  apiKey: ApiKeyRow,
  input: AddInput,
  providerAccess?: ReadonlyMap<string, boolean>,
): Promise<{ created: boolean; id: string }> {
  checkContent(input);
  // audited for READ COMMITTED on PostgreSQL (docs/storage.md, "Invariants"): organization and document created ON
  // CONFLICT DO NOTHING, a caller's notificationId under a key lock, profiles merged only over the row as read
  const result = await deps.storage.transaction(() => insertNotification(deps, scope, apiKey, input, providerAccess), { rowLevel: true });
  if (result.mails > 0) deps.mail.flush();
  return { created: result.created, id: result.id };
}

function checkContent(input: AddInput) {
  if (input.isNotificationResolverUsed ?? false) return;
  if (input.displayHeadlineMessageTemplate === undefined)
    throw invalid('displayHeadlineMessageTemplate is required unless isNotificationResolverUsed is true.');
  if (input.displayBodyMessage === undefined) throw invalid('displayBodyMessage is required unless isNotificationResolverUsed is true.');
}

/**
 * The write of addNotification, in the caller's unit of work (comments use it for mentions). Returns how many
 * e-mails it queued: the caller flushes the mailer after its commit.
 */
export async function insertNotification(
  deps: InsertDeps,
  scope: TenantScope,
  apiKey: ApiKeyRow,
  input: AddInput,
  providerAccess?: ReadonlyMap<string, boolean>,
): Promise<{ created: boolean; id: string; mails: number }> {
  // Each step of a unit of work is a turn of the event loop's microtasks (and, with the engine's async context, a few
  // µs): the common case (organization and document there, a new id) is decided by one read.
  // Only the caller's id is looked up. A made one is 16 random digits: with a million notifications in the
  // organization, about one add in 10^10 meets a stored id, and its insert then fails (before, it answered that
  // stored notification as this one). Its look-up was the read that made concurrent adds refuse each other on
  // PostgreSQL (the storage's prelude).
  const id = input.notificationId ?? newNotificationId();
  const named = [...new Set([input.actionUser.userId, ...input.notifyUsers.map((u) => u.userId)])];
  // everything the add reads before it writes, in one step (one statement on PostgreSQL): the rows below, the named
  // users' profiles and channel settings, the document's members and whether an endpoint takes the event
  const found = await deps.storage.notifications.prelude(scope, input.organizationId, input.documentId, {
    id: input.notificationId,
    userIds: named,
    eventType: 'notification.add',
  });
  if (!found.organization) await ensureOrganization(deps, scope, input.organizationId, input.createOrganization ?? false);
  if (!found.document) {
    if (!input.createDocument) throw missingDocument(input.documentId);
    await insertDocument(deps, scope, apiKey, input.organizationId, { documentId: input.documentId });
  }
  if (found.taken) return { created: false, id, mails: 0 };
  const explicit = new Set(input.notifyUsers.map((u) => u.userId));
  const asksAccess = (input.notifyAll ?? true) || input.verifyUserPermissions;
  // the prelude's members are of the document as it was: known when the organization and the document were there
  const before = found.organization && found.document ? found.document : undefined;
  let recipients = asksAccess
    ? await createAccessResolver(deps, scope, input.organizationId, undefined, {
        organization: found.organization,
        documents: found.document ? [found.document] : [],
        folders: found.folder ? [found.folder] : [],
        members: before && { at: documentMemberships(input.organizationId, before.id, found.folder), rows: found.members },
      }).batch((access) => withAccess(access, input, explicit, providerAccess))
    : [...explicit];
  const required = input.context?.access;
  if (required && recipients.length > 0) {
    // the profiles as they are before this call's upserts (a user it creates has no context permissions yet)
    const profiles = await deps.storage.users.findMany(scope, recipients);
    recipients = recipients.filter((userId) => grants(contextAccessOfUser(profiles.get(userId)), required));
  }
  if (!(input.isNotificationResolverUsed ?? false)) await upsertUsers(deps, scope, [input.actionUser, ...input.notifyUsers], found.profiles);
  const row = notificationRow(input, id);
  const told = await deps.storage.notifications.insert(
    scope,
    row,
    recipients,
    (settings) => deliveries(apiKey, input, recipients, explicit, channelsByUser(settings)),
    { userIds: new Set(named), rows: found.channels },
  );
  let mails = 0;
  if (told.mailed.length > 0) {
    const profiles = await deps.storage.users.findMany(scope, told.mailed);
    const outgoing = mailsTo(apiKey, input, told.mailed, (userId) => profiles.get(userId)?.email);
    // refused here, the unit of work rolls back: nothing of the call is written
    admitMailRecipients(deps, scope.apiKeyId, outgoing.length);
    for (const mail of outgoing) {
      await deps.mail.queue(mail);
      mails++;
    }
  }
  await emitAdded(deps, scope, { ...row, apiKeyId: scope.apiKeyId }, told.inbox, { advanced: found.subscribed, basic: false });
  return { created: true, id, mails };
}

const missingDocument = (documentId: string) => notFound(`Document does not exist: ${documentId}. Pass createDocument: true to create it.`);

/**
 * Who is told, by access: the named users, and with notifyAll everyone who can open the document; with
 * verifyUserPermissions only those who can: by the permission provider's decisions in its mode (a candidate it was
 * not asked about, one who gained access after it was asked, is left out), else by Hearth's own rules.
 */
function withAccess(access: AccessRules, input: AddInput, explicit: Set<string>, providerAccess?: ReadonlyMap<string, boolean>): string[] {
  const recipients = [...candidatesOf(access, input, explicit)];
  if (!input.verifyUserPermissions) return recipients;
  if (providerAccess) return recipients.filter((userId) => providerAccess.get(userId) === true);
  return recipients.filter((userId) => access.document(userId, input.documentId).access);
}

function candidatesOf(access: AccessRules, input: AddInput, explicit: Set<string>): Set<string> {
  const candidates = new Set(explicit);
  if (input.notifyAll ?? true) {
    for (const userId of access.documentUsers(input.documentId).keys()) if (userId !== input.actionUser.userId) candidates.add(userId);
  }
  return candidates;
}

/**
 * Who a notification may go to before access is verified (the named users, and with notifyAll the document's users):
 * what the permission provider is asked about, before the unit of work, for `verifyUserPermissions`.
 */
export function notificationCandidates(deps: Deps, scope: TenantScope, input: AddInput): Promise<string[]> {
  const explicit = new Set(input.notifyUsers.map((u) => u.userId));
  return createAccessResolver(deps, scope, input.organizationId).batch((access) => [...candidatesOf(access, input, explicit)]);
}

/** Context permissions (permissions add / generate_token `context`): whether every key-value of the notification is granted. */
const grants = (granted: Map<string, string[]>, required: Record<string, string | number>) =>
  Object.entries(required).every(([key, value]) => granted.get(key)?.includes(String(value)) ?? false);

/** The stored notification (its key's id aside). Resolver mode keeps ids only: the caller's infrastructure supplies names at read time. */
function notificationRow(input: AddInput, id: string): Omit<NotificationRow, 'apiKeyId'> {
  const resolverMode = input.isNotificationResolverUsed ?? false;
  const strip = (user: { userId: string; name?: string | undefined; email?: string | undefined }): StoredUser =>
    resolverMode ? { userId: user.userId } : (Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as StoredUser);
  const headlineData = input.displayHeadlineMessageTemplateData
    ? resolverMode
      ? Object.fromEntries(Object.entries(input.displayHeadlineMessageTemplateData).filter(([k]) => k !== 'actionUser' && k !== 'recipientUser'))
      : input.displayHeadlineMessageTemplateData
    : null;
  return {
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
    timestamp: currentTime(),
  };
}

/** By each recipient's settings: who gets it in their inbox, and who is mailed (when the key's e-mail service is on). */
function deliveries(apiKey: ApiKeyRow, input: AddInput, recipients: string[], explicit: Set<string>, channels: ReturnType<typeof channelsByUser>) {
  const mailing = !(input.isNotificationResolverUsed ?? false) && apiKey.settings.useEmailService;
  const inbox: NewRecipient[] = [];
  const mailed: string[] = [];
  for (const userId of recipients) {
    const setting = channels(userId).document;
    const named = explicit.has(userId);
    if (wants(setting.inbox, named)) inbox.push({ userId, explicit: named });
    if (mailing && wants(setting.email, named)) mailed.push(userId);
  }
  return { inbox, mailed };
}

/** The notification's e-mail to each mailed user with an address. */
function mailsTo(apiKey: ApiKeyRow, input: AddInput, userIds: string[], emailOf: (userId: string) => string | null | undefined): OutgoingMail[] {
  const mails: OutgoingMail[] = [];
  for (const userId of userIds) {
    const email = emailOf(userId);
    if (!email) continue;
    const data = { ...(input.displayHeadlineMessageTemplateData ?? {}), actionUser: input.actionUser };
    mails.push({
      kind: 'notification',
      apiKeyId: apiKey.id,
      to: email,
      from: mailSender(apiKey),
      subject: renderTemplate(input.displayHeadlineMessageTemplate ?? '', data),
      text: input.displayBodyMessage ?? '',
      html: `<p>${escapeHtml(input.displayBodyMessage ?? '')}</p>`,
    });
  }
  return mails;
}

/** The notification.add event (no basic form), written to the outbox in the same unit of work for `who`. */
async function emitAdded(deps: Deps, scope: TenantScope, row: NotificationRow, inbox: readonly NewRecipient[], who: Subscribers) {
  const recipients = inbox.map((r) => ({ userId: r.userId, readAt: null }));
  await emitEvent(
    deps,
    scope,
    {
      type: 'notification.add',
      organizationId: row.organizationId,
      documentId: row.documentId,
      actionUser: row.actionUser,
      actionType: 'add',
      source: 'notification',
      data: () => ({ notification: describeNotification(row, recipients) }),
    },
    who,
  );
}

/**
 * A notification as the notification.add event describes it; /v2/notifications/get answers the same objects,
 * built from its raw rows by db/repos/notification-page.ts (test/api/notifications/get-equivalence.test.ts compares).
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
export async function getNotifications(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof notificationsGetInput>) {
  if (!input.documentId && !input.userId) throw invalid('Pass documentId or userId.');
  const query = {
    op: 'notifications/get',
    apiKeyId: scope.apiKeyId,
    o: input.organizationId,
    d: input.documentId,
    l: input.locationId,
    u: input.userId,
    ids: input.notificationIds,
    order: input.order,
  };
  const cursor = readPageToken(deps, query, input.pageToken, ['number', 'string']);
  const items = await deps.storage.notifications.page(scope, input, cursor);
  return paginate(items, input.pageSize, (item) => [item.timestamp, item.id], deps.pageTokens, query);
}

type Outcomes = Record<string, { success: boolean; message: string }>;

/** /v1/notifications/delete: the notifications matching every filter given; named ids not matched are `success: false`. */
export async function deleteNotifications(deps: Deps, scope: TenantScope, input: z.output<typeof notificationsDeleteInput>): Promise<Outcomes> {
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): one DELETE … RETURNING; a second delete of a row waits
  // for the first's commit and deletes nothing
  const ids = await deps.storage.transaction(() => deps.storage.notifications.delete(scope, input), { rowLevel: true });
  const out: Outcomes = keyed();
  for (const id of ids) out[id] = { success: true, message: 'Notification deleted.' };
  for (const id of input.notificationIds ?? []) if (!out[id]) out[id] = { success: false, message: 'Failed to delete notification.' };
  return out;
}

/** /v2/notifications/update: content edits and read state per user. */
export async function updateNotifications(deps: Deps, scope: TenantScope, input: z.output<typeof notificationsUpdateInput>): Promise<Outcomes> {
  const edits = input.notifications.map((item) => ({
    id: item.id,
    change: (row: NotificationRow) => ({
      actionUser: item.actionUser && !row.resolver ? item.actionUser : row.actionUser,
      headlineTemplate: item.displayHeadlineMessageTemplate ?? row.headlineTemplate,
      headlineData: item.displayHeadlineMessageTemplateData ?? row.headlineData,
      body: item.displayBodyMessage ?? row.body,
      sourceData: item.notificationSourceData ?? row.sourceData,
    }),
    readBy: item.readByUserIds,
    unreadBy: item.unreadByUserIds,
    readAt: currentTime(),
  }));
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): each notification is read under its key lock, so that an
  // update's fields go over what the update before it wrote
  const found = await deps.storage.transaction(() => deps.storage.notifications.update(scope, input.organizationId, edits), { rowLevel: true });
  const out: Outcomes = keyed();
  edits.forEach((edit, i) => {
    out[edit.id] = found[i] ? { success: true, message: 'Notification updated.' } : { success: false, message: 'Failed to update notification.' };
  });
  return out;
}

/** /v2/notifications/config/get: the user's settings per document (falling back to the organization's), then the organization's. */
export async function getNotificationConfig(
  deps: Deps,
  scope: TenantScope,
  input: { organizationId: string; userId: string; documentIds?: string[] | undefined; getOrganizationConfig?: boolean | undefined },
) {
  const rows = await deps.storage.notifications.configs(scope, input.organizationId, input.userId);
  const byDocument = new Map(rows.map((r) => [r.documentId, r]));
  const organization = resolveChannels(byDocument.get(''), undefined);
  const metadata = (documentId: string | null) => ({ organizationId: input.organizationId, apiKey: scope.apiKeyId, documentId, userId: input.userId });
  const out = (input.documentIds ?? []).map((documentId) => ({
    config: resolveChannels(byDocument.get(''), byDocument.get(documentId)),
    metadata: metadata(documentId),
  }));
  if (input.getOrganizationConfig || !input.documentIds?.length) out.push({ config: organization, metadata: metadata(null) });
  return out;
}

/** /v2/notifications/config/set: for each user, the organization's settings, or each given document's. */
export async function setNotificationConfig(
  deps: Deps,
  scope: TenantScope,
  input: {
    organizationId: string;
    userIds: string[];
    documentIds?: string[] | undefined;
    config: { inbox?: Channel | undefined; email?: Channel | undefined; slack?: Channel | undefined };
  },
) {
  if (!input.config.inbox && !input.config.email && !input.config.slack) throw invalid('config must set at least one of inbox, email or slack.');
  const documents = input.documentIds?.length ? input.documentIds : [''];
  const keys = [...new Set(input.userIds)].flatMap((userId) => documents.map((documentId) => ({ userId, documentId })));
  const given = input.config;
  // the channels named are set on this row; the others keep what the row had (none: the organization's, or ALL)
  const next = (stored: ChannelSettings | undefined): ChannelSettings => {
    const current = stored ?? { ...DEFAULT_CONFIG, channelsSet: 0 };
    return {
      inbox: given.inbox ?? current.inbox,
      email: given.email ?? current.email,
      slack: given.slack ?? current.slack,
      channelsSet:
        current.channelsSet | (given.inbox ? CHANNEL_BITS.inbox : 0) | (given.email ? CHANNEL_BITS.email : 0) | (given.slack ? CHANNEL_BITS.slack : 0),
    };
  };
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the organization's insert is ON CONFLICT DO NOTHING, and
  // each setting is read under its key lock, so that a call's channels go over what the call before it set
  await deps.storage.transaction(
    async () => {
      await ensureOrganization(deps, scope, input.organizationId, false);
      await deps.storage.notifications.saveConfigs(scope, input.organizationId, keys, next, currentTime());
    },
    { rowLevel: true },
  );
  return keys.map(({ userId, documentId }) => ({ success: true, userId, documentId: documentId || null, message: 'User config set successfully.' }));
}
