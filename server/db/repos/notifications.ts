// Notifications (one row each, one row per recipient) and the users' channel settings. notifications/add is a hot
// write: its statements are plain SQL compiled once per connection (the statement cache of db/client.ts), since
// building each query with drizzle cost more than the rest of the call. The encodings are drizzle's for these
// columns: JSON columns as JSON text (NULL for null), booleans as 1 / 0. The page read lives in notification-page.ts.
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { byCodePoint, type Engine } from '../engine.ts';
import type { Cursor } from '../pagination.ts';
import { connectionOf } from '../connection.ts';
import type { notificationConfigs, notifications } from '../schema.ts';
import type { TenantScope } from '../scope.ts';
import type { SqliteEngine } from '../storage.ts';
import { findDocumentOn, type DocumentRow } from './documents.ts';
import { findFolderOn, folderChain, type FolderRow } from './folders.ts';
import type { MembershipLevel } from './memberships.ts';
import { readNotificationPage, type NotificationFilters } from './notification-page.ts';
import { findOrganizationOn } from './access.ts';
import type { OrganizationRow } from './organizations.ts';
import { findUsersOn, type UserRow } from './users.ts';
import { ADVANCED_TAKES_EVENT } from './webhooks.ts';

export type { StoredUser } from '../schema.ts';
export { userKey, type NotificationFilters, type NotificationItem } from './notification-page.ts';

export type NotificationRow = typeof notifications.$inferSelect;
export type NotificationConfigRow = typeof notificationConfigs.$inferSelect;
type Channel = NotificationConfigRow['inbox'];
/** A user's stored channel settings for the organization (documentId '') or one document. */
export type ChannelRow = { userId: string; documentId: string; inbox: Channel; email: Channel; slack: Channel; channelsSet: number };
/** Channel settings read already (the prelude's): the rows of these users, for the notification's document. */
export type KnownChannels = { userIds: ReadonlySet<string>; rows: readonly ChannelRow[] };
/** What notifications/update may change of a notification's content. */
export type NotificationContentChange = Pick<NotificationRow, 'actionUser' | 'headlineTemplate' | 'headlineData' | 'body' | 'sourceData'>;
/** A recipient as notifications/add writes it: named in notifyUsers (`explicit`) or told through notifyAll. */
export type NewRecipient = { userId: string; explicit: boolean };

/**
 * What notifications/add asks its prelude besides the organization and the document: whether the caller's id
 * (`id`, undefined for a made one) is taken, the profiles and channel settings of the users it names (`userIds`), and
 * whether an advanced endpoint takes its event (`eventType`, about the organization and the document).
 */
export type PreludeAsk = { id: string | undefined; userIds: readonly string[]; eventType: string };
/** A user with a membership on a resource. */
export type Member = { level: MembershipLevel; resourceId: string; userId: string };
/**
 * Everything notifications/add reads before it writes, in one step (on PostgreSQL one statement: each statement's
 * round trip is a large share of the add's cost there; docs/storage.md, "Fewer statements, each prepared"):
 * - the organization's, the document's and the document's folder's rows (undefined where absent), which the access
 *   resolver starts from;
 * - the members of the document (when it exists), of its folder chain and of the organization, by level, resource and
 *   user: who notifyAll tells, before their access is decided;
 * - whether the caller's notification id is taken;
 * - the named users' profiles (users upserts them) and their channel settings for the organization ('') and the
 *   document, by document then user;
 * - whether an advanced endpoint takes the notification's event now (`subscribed`; no basic form).
 */
export type Prelude = {
  organization: OrganizationRow | undefined;
  document: DocumentRow | undefined;
  folder: FolderRow | undefined;
  members: Member[];
  taken: boolean;
  profiles: Map<string, UserRow>;
  channels: ChannelRow[];
  subscribed: boolean;
};
/** The settings a config/set writes on one row. */
export type ChannelSettings = Pick<NotificationConfigRow, 'inbox' | 'email' | 'slack' | 'channelsSet'>;

const NOTIFICATION_EXISTS = 'SELECT 1 FROM notifications WHERE api_key_id = ? AND organization_id = ? AND id = ?';
const INSERT_NOTIFICATION =
  'INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_RECIPIENT =
  'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)';
/** The recipients' channel settings, the organization's ('') and the document's; the user ids as one JSON array. */
const CHANNELS =
  "SELECT user_id AS userId, document_id AS documentId, inbox, email, slack, channels_set AS channelsSet FROM notification_configs WHERE api_key_id = ? AND organization_id = ? AND user_id IN (SELECT value FROM json_each(?)) AND document_id IN ('', ?) ORDER BY document_id, user_id";
/** The members of a document (NULL: none asked), of the organization and of folders (their ids as one JSON array). */
const MEMBERS =
  "SELECT level, resource_id AS resourceId, user_id AS userId FROM memberships WHERE api_key_id = ? AND organization_id = ? AND ((level = 'document' AND resource_id = ?) OR (level = 'organization' AND resource_id = ?) OR (level = 'folder' AND resource_id IN (SELECT value FROM json_each(?)))) ORDER BY level, resource_id, user_id";

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

const exists = (db: Db, apiKeyId: string, organizationId: string, id: string) =>
  connectionOf(db).prepare(NOTIFICATION_EXISTS).get(apiKeyId, organizationId, id) !== undefined;

const channelRows = (db: Db, apiKeyId: string, organizationId: string, documentId: string, userIds: readonly string[]): ChannelRow[] =>
  userIds.length ? connectionOf(db).prepare<unknown[], ChannelRow>(CHANNELS).all(apiKeyId, organizationId, JSON.stringify(userIds), documentId) : [];

/** What notifications/add looks at first (Prelude); an id Hearth makes is not looked up: see the repository's `prelude`. */
function prelude(db: Db, apiKeyId: string, organizationId: string, documentId: string, ask: PreludeAsk): Prelude {
  const document = findDocumentOn(db, apiKeyId, organizationId, documentId);
  const folder = document?.folderId ? findFolderOn(db, apiKeyId, organizationId, document.folderId) : undefined;
  const sqlite = connectionOf(db);
  const subscribed = sqlite
    .prepare<unknown[], { yes: number }>(ADVANCED_TAKES_EVENT.sqlite)
    .get(apiKeyId, ask.eventType, organizationId || null, documentId || null);
  return {
    organization: findOrganizationOn(db, apiKeyId, organizationId),
    document,
    folder,
    members: sqlite
      .prepare<unknown[], Member>(MEMBERS)
      .all(apiKeyId, organizationId, document ? documentId : null, organizationId, JSON.stringify(folderChain(folder))),
    taken: ask.id !== undefined && exists(db, apiKeyId, organizationId, ask.id),
    profiles: findUsersOn(db, apiKeyId, ask.userIds),
    channels: channelRows(db, apiKeyId, organizationId, documentId, ask.userIds),
    subscribed: subscribed?.yes === 1,
  };
}

/**
 * Of the channel settings of `userIds`, the rows `known` holds, and the users it did not read (each engine's insert
 * reads theirs in its own step).
 */
export function knownChannelsOf(userIds: readonly string[], known: KnownChannels | undefined): { rows: ChannelRow[]; missing: readonly string[] } {
  if (!known) return { rows: [], missing: userIds };
  const wanted = new Set(userIds);
  return { rows: known.rows.filter((r) => wanted.has(r.userId)), missing: userIds.filter((userId) => !known.userIds.has(userId)) };
}

/**
 * The recipients' channel settings for the notification's document, handed to `decide` (who gets it in their inbox,
 * and what else the caller wants to know), then the notification with those recipients: decide's answer.
 */
function insertDeciding<T extends { inbox: readonly NewRecipient[] }>(
  db: Db,
  row: NotificationRow,
  userIds: readonly string[],
  decide: (settings: ChannelRow[]) => T,
  known: KnownChannels | undefined,
): T {
  const { rows, missing } = knownChannelsOf(userIds, known);
  const decided = decide([...rows, ...channelRows(db, row.apiKeyId, row.organizationId, row.documentId, missing)]);
  insert(db, row, decided.inbox);
  return decided;
}

/**
 * A notification's fourteen columns in INSERT_NOTIFICATION's order (PostgreSQL's insert takes them so too): JSON
 * columns as JSON text (NULL for null), `resolver` as the engine binds a boolean.
 */
export const notificationValues = (row: NotificationRow, bool: (value: boolean) => unknown = (b) => (b ? 1 : 0)) => [
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
  bool(row.resolver),
  jsonOrNull(row.contextAccess),
  row.timestamp,
];

/** The notification, then its recipients (told at its time, about its document). */
function insert(db: Db, row: NotificationRow, recipients: readonly NewRecipient[]) {
  const sqlite = connectionOf(db);
  sqlite.prepare(INSERT_NOTIFICATION).run(...notificationValues(row));
  if (recipients.length === 0) return;
  const insertRecipient = sqlite.prepare(INSERT_RECIPIENT);
  for (const recipient of recipients)
    insertRecipient.run(row.apiKeyId, row.organizationId, row.id, recipient.userId, row.documentId, row.timestamp, recipient.explicit ? 1 : 0);
}

/**
 * Notifications' statements that each engine writes its own way: the hot add (its prelude and its insert) and the
 * page, each a named statement of plain SQL (this file on SQLite, pg/repos/notifications.ts on PostgreSQL).
 */
export function notificationsSqlite(engine: SqliteEngine) {
  return {
    /**
     * What notifications/add decides by (Prelude), in one step. `ask.id` is the id the caller gave (notificationId),
     * undefined when Hearth makes one: a made id is not looked up (`taken` is false), since that read is what made
     * concurrent adds refuse each other on PostgreSQL (SERIALIZABLE: every insert lands in index pages other adds had
     * read).
     */
    prelude: (scope: TenantScope, organizationId: string, documentId: string, ask: PreludeAsk) =>
      engine.read((db) => prelude(db, scope.apiKeyId, organizationId, documentId, ask)),

    /** The stored channel settings of these users for the organization ('') and for the document. */
    channelRows: (scope: TenantScope, organizationId: string, documentId: string, userIds: readonly string[]) =>
      engine.read((db) => channelRows(db, scope.apiKeyId, organizationId, documentId, userIds)),

    /**
     * Writes the notification and its recipients in one step, with the recipients `decide` picks from the
     * candidates' channel settings (`known`'s, the others read in the same step); the caller checked its id is free.
     * Answers decide's answer.
     */
    insert: <T extends { inbox: readonly NewRecipient[] }>(
      scope: TenantScope,
      row: Omit<NotificationRow, 'apiKeyId'>,
      userIds: readonly string[],
      decide: (settings: ChannelRow[]) => T,
      known?: KnownChannels,
    ) => engine.write((db) => insertDeciding(db, { ...row, apiKeyId: scope.apiKeyId }, userIds, decide, known)),

    /** Up to `filters.pageSize + 1` notifications after the cursor, as notifications/get describes them. */
    page: (scope: TenantScope, filters: NotificationFilters, cursor: Cursor | null) =>
      engine.read((db) => readNotificationPage(db, scope.apiKeyId, filters, cursor)),
  };
}

/** The statements each engine writes its own way (notificationsSqlite's, and PostgreSQL's notificationsPg). */
export type NotificationsOwn = ReturnType<typeof notificationsSqlite>;

/**
 * The key's notifications, their recipients and the users' channel settings: the engine's own statements (`own`),
 * and the rest written once for both engines (engine.ts; test/pg/notifications.test.ts compares every answer).
 */
export function notificationsRepo(engine: Engine, own: NotificationsOwn) {
  const { notifications: n, notificationRecipients: r, notificationConfigs: cfg } = engine.t;
  return {
    ...own,

    /**
     * Edits notifications one after another: `change` gives the new content from the stored row; `readBy` and
     * `unreadBy` set the named recipients' read time (`readAt`) or clear it. Per edit, whether the notification exists.
     * Each is a read-modify-write of the row: its key is held until the commit (engine.lock, the key add holds too),
     * so that two updates of one notification apply one after the other on PostgreSQL too.
     */
    update: (
      scope: TenantScope,
      organizationId: string,
      edits: ReadonlyArray<{
        id: string;
        change: (row: NotificationRow) => NotificationContentChange;
        readBy?: readonly string[] | undefined;
        unreadBy?: readonly string[] | undefined;
        readAt: number;
      }>,
    ) =>
      engine.write(async (db) => {
        // every key first (engine.lockRows): the key an add of that id takes (pg/repos/notifications.ts's prelude)
        await engine.lockRows(
          db,
          ['notification', scope.apiKeyId, organizationId],
          edits.map((e) => e.id),
        );
        const answers: boolean[] = [];
        for (const edit of edits) {
          const where = and(eq(n.apiKeyId, scope.apiKeyId), eq(n.organizationId, organizationId), eq(n.id, edit.id));
          const [row] = await db.select().from(n).where(where);
          if (!row) {
            answers.push(false);
            continue;
          }
          await db.update(n).set(edit.change(row)).where(where);
          const named = (userIds: readonly string[]) =>
            and(eq(r.apiKeyId, scope.apiKeyId), eq(r.organizationId, organizationId), eq(r.notificationId, edit.id), inArray(r.userId, [...userIds]));
          if (edit.readBy?.length) await db.update(r).set({ readAt: edit.readAt }).where(named(edit.readBy));
          if (edit.unreadBy?.length) await db.update(r).set({ readAt: null }).where(named(edit.unreadBy));
          answers.push(true);
        }
        return answers;
      }),

    /**
     * Deletes the notifications matching every filter given (their recipients by cascade); the ids deleted, in the
     * primary key's order. The rows deleted are the ones answered (RETURNING).
     */
    delete: (
      scope: TenantScope,
      filters: {
        organizationId: string;
        documentId?: string | undefined;
        locationId?: string | undefined;
        notificationIds?: string[] | undefined;
        userId?: string | undefined;
      },
    ) =>
      engine.write(async (db) => {
        const conditions: SQL[] = [eq(n.apiKeyId, scope.apiKeyId), eq(n.organizationId, filters.organizationId)];
        if (filters.documentId) conditions.push(eq(n.documentId, filters.documentId));
        if (filters.locationId) conditions.push(eq(n.locationId, filters.locationId));
        if (filters.notificationIds) conditions.push(inArray(n.id, filters.notificationIds));
        if (filters.userId) {
          const told = db
            .select({ id: r.notificationId })
            .from(r)
            .where(and(eq(r.apiKeyId, scope.apiKeyId), eq(r.organizationId, filters.organizationId), eq(r.userId, filters.userId)));
          conditions.push(inArray(n.id, told));
        }
        const deleted = await db
          .delete(n)
          .where(and(...conditions))
          .returning({ id: n.id });
        return deleted.map((x) => x.id).sort(byCodePoint);
      }),

    /** A user's settings rows in the organization: its own ('') and the documents', by document. */
    configs: (scope: TenantScope, organizationId: string, userId: string) =>
      engine.read((db) =>
        db
          .select()
          .from(cfg)
          .where(and(eq(cfg.apiKeyId, scope.apiKeyId), eq(cfg.organizationId, organizationId), eq(cfg.userId, userId)))
          .orderBy(cfg.documentId),
      ),

    /**
     * Writes each (user, document) row, one after another, with what `next` makes of the row stored (undefined:
     * none yet); `updatedAt` is `now` (Hearth's clock, which testing mode can move). A read-modify-write of a row that
     * may not exist yet: its key is held first (engine.lock), then it is read.
     */
    saveConfigs: (
      scope: TenantScope,
      organizationId: string,
      keys: ReadonlyArray<{ userId: string; documentId: string }>,
      next: (current: NotificationConfigRow | undefined) => ChannelSettings,
      now: number,
    ) =>
      engine.write(async (db) => {
        // every key first (engine.lockRows)
        await engine.lockRows(
          db,
          ['notification-config', scope.apiKeyId, organizationId],
          keys.map((k) => JSON.stringify([k.documentId, k.userId])),
        );
        for (const { userId, documentId } of keys) {
          const [current] = await db
            .select()
            .from(cfg)
            .where(and(eq(cfg.apiKeyId, scope.apiKeyId), eq(cfg.organizationId, organizationId), eq(cfg.documentId, documentId), eq(cfg.userId, userId)));
          const settings = next(current);
          await db
            .insert(cfg)
            .values({ apiKeyId: scope.apiKeyId, organizationId, documentId, userId, ...settings, updatedAt: now })
            .onConflictDoUpdate({ target: [cfg.apiKeyId, cfg.organizationId, cfg.documentId, cfg.userId], set: { ...settings, updatedAt: now } });
        }
      }),
  };
}

export type NotificationsRepo = ReturnType<typeof notificationsRepo>;
