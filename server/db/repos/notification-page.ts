// The read of /v2/notifications/get, the feed's hottest path: one statement per filter shape, prepared once per
// connection, that returns a page with the recipients of each notification, and the answer objects built straight
// from its raw rows (the repository answers the API's objects here: building them from the raw columns is what
// keeps the page cheap, and the columns' order is this file's to know).
//
// - One statement, not a page query and a recipients query in a read transaction: a statement reads one
//   snapshot by itself, so the transaction (BEGIN and COMMIT) and the second query with its up to 64 bound ids
//   go. Each row carries its recipients as a JSON array from a correlated subquery that searches the recipients'
//   primary key, the index the IN query searched, and so lists them in the same order (by user id).
// - The page's WHERE and ORDER BY are the text drizzle builds for the same filters, so SQLite plans them the
//   same, on the same indexes (notifications_document / _location by document, notification_recipients_user /
//   _user_document by recipient; test/api/notifications/get-equivalence.test.ts checks the plans).
// - Columns whose value the filters fix (the API key, the organization, the document of a by-document page) are
//   not read back: every value better-sqlite3 hands to JavaScript costs a string, and an equality filter on a text
//   column (BINARY collation) means the stored value is the bound one.
// - Each row becomes the answer object at once, with describeNotification's keys in its order and its values
//   (the same test compares the two byte for byte over varied data). Items of one answer share the metadata
//   object (when the document is fixed) and the action user parsed from the same text: an answer is only
//   serialized, never changed.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Db } from '../client.ts';
import type { Cursor } from '../pagination.ts';
import { connectionOf } from '../connection.ts';
import type { StoredUser } from '../schema.ts';

export interface NotificationFilters {
  organizationId: string;
  documentId?: string | undefined;
  locationId?: string | undefined;
  userId?: string | undefined;
  notificationIds?: string[] | undefined;
  pageSize: number;
  order: 'asc' | 'desc';
}

/** One notification as /v2/notifications/get (and the notification.add event) describes it. */
export interface NotificationItem {
  id: string;
  notificationSource: string;
  notificationSourceData: Record<string, unknown>;
  actionUser: StoredUser;
  displayHeadlineMessageTemplate: string | null;
  displayHeadlineMessageTemplateData: Record<string, unknown>;
  displayBodyMessage: string | null;
  isNotificationResolverUsed: boolean;
  locationId: string | null;
  context: { access: Record<string, string | number> } | null;
  metadata: { apiKey: string; documentId: string; organizationId: string };
  notifyUsers: Record<string, true>;
  notifyUsersByUserId: Record<string, true>;
  readByUserIds: string[];
  timestamp: number;
}

// Every page describes each recipient with this digest: remembered, since the same users recur on every page.
const userKeys = new Map<string, string>();
const MAX_USER_KEYS = 10_000;

/** The hosted service keys `notifyUsers` by the md5 hex of the userId. */
export function userKey(userId: string): string {
  let key = userKeys.get(userId);
  if (key === undefined) {
    key = createHash('md5').update(userId).digest('hex');
    if (userKeys.size >= MAX_USER_KEYS) userKeys.clear();
    userKeys.set(userId, key);
  }
  return key;
}

export const N = '"notifications"';
export const R = '"notification_recipients"';

/** Raw columns in this order; then the recipients, and the document's id where the filters do not fix it. */
export const COLUMNS = [
  'id',
  'location_id',
  'source',
  'source_data',
  'action_user',
  'headline_template',
  'headline_data',
  'body',
  'resolver',
  'context_access',
  'timestamp',
];
const Col = {
  Id: 0,
  Location: 1,
  Source: 2,
  SourceData: 3,
  ActionUser: 4,
  HeadlineTemplate: 5,
  HeadlineData: 6,
  Body: 7,
  Resolver: 8,
  ContextAccess: 9,
  Timestamp: 10,
  /** the RECIPIENTS subquery */
  Recipients: 11,
  /** only when the filters do not fix the document */
  Document: 12,
} as const;

/** The recipients of the row's notification as `[[userId, readAt], …]` by user id (`[]` when it has none). */
const RECIPIENTS =
  `(select json_group_array(json_array(r."user_id", r."read_at")) from ${R} r` +
  ` where r."api_key_id" = ${N}."api_key_id" and r."organization_id" = ${N}."organization_id" and r."notification_id" = ${N}."id")`;

/**
 * A by-recipient page leaves out notifications of a private comment the reader may no longer see (reference
 * §2.15): source `comment`, its `notificationSourceData.annotationId` naming a restricted annotation of the
 * organization that neither names the reader nor was written by them. Mentions notify only users who can see the
 * thread, so this matters once a thread is made private or its list narrowed; widening it shows them again.
 * The reader is bound twice (`?` ×2).
 */
const VISIBLE_TO_READER =
  `(${N}."source" <> 'comment' or not exists (select 1 from "comment_annotations" a` +
  ` where a."api_key_id" = ${N}."api_key_id" and a."organization_id" = ${N}."organization_id" and a."id" = json_extract(${N}."source_data", '$.annotationId')` +
  ` and a."visibility" = 'restricted' and a."created_by_user_id" <> ? and not exists (select 1 from json_each(a."visible_to_user_ids") v where v."value" = ?)))`;

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** What decides a page's statement: which filters are given, the cursor, the order, the number of ids. */
export interface Shape {
  byUser: boolean;
  document: boolean;
  location: boolean;
  cursor: boolean;
  descending: boolean;
  ids: number;
}

/** What of the page statement each engine words its own way (SQLite's below; PostgreSQL's in pg/repos/notifications.ts). */
export interface PageWords {
  /** A raw column of COLUMNS as selected (PostgreSQL reads JSON columns as their text). */
  column(name: string): string;
  /** The recipients subquery (RECIPIENTS). */
  recipients: string;
  /** The private-comment rule, the reader bound twice (VISIBLE_TO_READER). */
  visibleToReader: string;
}

const SQLITE_WORDS: PageWords = { column: (c) => `${N}."${c}"`, recipients: RECIPIENTS, visibleToReader: VISIBLE_TO_READER };

/**
 * The page statement for one filter shape in an engine's words, with its parameters in the order its `?` appear
 * (pageParams): the same WHERE and ORDER BY on both engines.
 */
export function pageSql(shape: Shape, words: PageWords = SQLITE_WORDS): string {
  const before = shape.descending ? '<' : '>';
  const direction = shape.descending ? 'desc' : 'asc';
  // by document the filter fixes the notification's document; by recipient it filters the recipient row's copy
  // (the same value while the rows agree, but the answer names the notification's)
  const documentFixed = !shape.byUser;
  const select = [...COLUMNS.map(words.column), words.recipients, ...(documentFixed ? [] : [`${N}."document_id"`])].join(', ');
  if (shape.byUser) {
    const conditions = [`${R}."api_key_id" = ?`, `${R}."organization_id" = ?`, `${R}."user_id" = ?`];
    if (shape.cursor) conditions.push(`(${R}."timestamp" ${before} ? or (${R}."timestamp" = ? and ${R}."notification_id" ${before} ?))`);
    if (shape.document) conditions.push(`${R}."document_id" = ?`);
    if (shape.ids > 0) conditions.push(`${R}."notification_id" in (${placeholders(shape.ids)})`);
    if (shape.location) conditions.push(`${N}."location_id" = ?`);
    conditions.push(words.visibleToReader);
    return (
      `select ${select} from ${R} inner join ${N} on (${N}."api_key_id" = ${R}."api_key_id" and ${N}."organization_id" = ${R}."organization_id" and ${N}."id" = ${R}."notification_id")` +
      ` where (${conditions.join(' and ')}) order by ${R}."timestamp" ${direction}, ${R}."notification_id" ${direction} limit ?`
    );
  }
  const conditions = [`${N}."api_key_id" = ?`, `${N}."organization_id" = ?`, `${N}."document_id" = ?`];
  if (shape.cursor) conditions.push(`(${N}."timestamp" ${before} ? or (${N}."timestamp" = ? and ${N}."id" ${before} ?))`);
  if (shape.location) conditions.push(`${N}."location_id" = ?`);
  if (shape.ids > 0) conditions.push(`${N}."id" in (${placeholders(shape.ids)})`);
  return `select ${select} from ${N} where (${conditions.join(' and ')}) order by ${N}."timestamp" ${direction}, ${N}."id" ${direction} limit ?`;
}

type Row = unknown[];

const json = <T>(value: unknown): T | null => (value === null ? null : (JSON.parse(value as string) as T));

/**
 * `{ [key]: true }` for each key, in order: what Object.fromEntries gives (a `__proto__` key included, as an
 * own property), without its entry arrays.
 */
function flags(keys: string[]): Record<string, true> {
  const out: Record<string, true> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === '__proto__') Object.defineProperty(out, key, { value: true, enumerable: true, writable: true, configurable: true });
    else out[key] = true;
  }
  return out;
}

/** An item's recipient fields, from the `[[userId, readAt], …]` text of the page statement. */
interface RecipientFields {
  notifyUsers: Record<string, true>;
  notifyUsersByUserId: Record<string, true>;
  readByUserIds: string[];
}

function recipientFields(text: string): RecipientFields {
  const recipients = JSON.parse(text) as Array<[string, number | null]>;
  const userIds = new Array<string>(recipients.length);
  const keys = new Array<string>(recipients.length);
  const readBy: string[] = [];
  for (let i = 0; i < recipients.length; i++) {
    const [userId, readAt] = recipients[i] as [string, number | null];
    userIds[i] = userId;
    keys[i] = userKey(userId);
    if (readAt !== null) readBy.push(userId);
  }
  return { notifyUsers: flags(keys), notifyUsersByUserId: flags(userIds), readByUserIds: readBy };
}

/** The shape of a page's filters (by recipient or by document, and which optional filters are given). */
export function pageShape(f: NotificationFilters, cursor: Cursor | null): Shape {
  const byUser = f.userId !== undefined && f.userId !== '';
  return {
    byUser,
    document: byUser && !!f.documentId,
    location: !!f.locationId,
    cursor: cursor !== null,
    descending: f.order === 'desc',
    ids: f.notificationIds?.length ?? 0,
  };
}

/** The page statement's parameters, in the order its placeholders appear (pageSql's, and the PostgreSQL engine's). */
export function pageParams(apiKeyId: string, f: NotificationFilters, cursor: Cursor | null, shape: Shape): unknown[] {
  const params: unknown[] = [apiKeyId, f.organizationId];
  if (shape.byUser) {
    params.push(f.userId);
    if (cursor) params.push(cursor[0], cursor[0], cursor[1]);
    if (shape.document) params.push(f.documentId);
    if (f.notificationIds) params.push(...f.notificationIds);
    if (shape.location) params.push(f.locationId);
    params.push(f.userId, f.userId);
  } else {
    params.push(f.documentId);
    if (cursor) params.push(cursor[0], cursor[0], cursor[1]);
    if (shape.location) params.push(f.locationId);
    if (f.notificationIds) params.push(...f.notificationIds);
  }
  params.push(f.pageSize + 1);
  return params;
}

/**
 * The answer objects of a page's raw rows: the columns of COLUMNS in order (JSON columns as their text), the
 * recipients' `[[userId, readAt], …]` text, and the document's id where the filters do not fix it. Either engine's
 * page statement hands its rows in this form.
 */
export function describePage(rows: unknown[][], apiKeyId: string, f: NotificationFilters, documentFixed: boolean): NotificationItem[] {
  const items = new Array<NotificationItem>(rows.length);
  // with the document fixed, every item of the page has the same metadata
  const shared = documentFixed ? { apiKey: apiKeyId, documentId: f.documentId as string, organizationId: f.organizationId } : undefined;
  // a page names a few acting users many times: each distinct text is parsed once per page
  const actionUsers = new Map<string, StoredUser>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Row;
    const text = row[Col.ActionUser] as string;
    let actionUser = actionUsers.get(text);
    if (actionUser === undefined) actionUsers.set(text, (actionUser = JSON.parse(text) as StoredUser));
    items[i] = describe(row, actionUser, shared ?? { apiKey: apiKeyId, documentId: row[Col.Document] as string, organizationId: f.organizationId });
  }
  return items;
}

/** describeNotification's object for a raw row: the same keys in the same order, the same values. */
function describe(row: Row, actionUser: StoredUser, metadata: NotificationItem['metadata']): NotificationItem {
  const recipients = recipientFields(row[Col.Recipients] as string);
  const contextAccess = json<Record<string, string | number>>(row[Col.ContextAccess]);
  return {
    id: row[Col.Id] as string,
    notificationSource: row[Col.Source] as string,
    notificationSourceData: json<Record<string, unknown>>(row[Col.SourceData]) ?? {},
    actionUser,
    displayHeadlineMessageTemplate: row[Col.HeadlineTemplate] as string | null,
    displayHeadlineMessageTemplateData: json<Record<string, unknown>>(row[Col.HeadlineData]) ?? {},
    displayBodyMessage: row[Col.Body] as string | null,
    isNotificationResolverUsed: Number(row[Col.Resolver]) === 1,
    locationId: row[Col.Location] as string | null,
    context: contextAccess ? { access: contextAccess } : null,
    metadata,
    notifyUsers: recipients.notifyUsers,
    notifyUsersByUserId: recipients.notifyUsersByUserId,
    readByUserIds: recipients.readByUserIds,
    timestamp: row[Col.Timestamp] as number,
  };
}

class NotificationStatements {
  private readonly pages = new Map<string, { sql: string; statement: Database.Statement<unknown[], Row>; documentFixed: boolean }>();

  constructor(private readonly sqlite: Database.Database) {}

  /** The statement of the filters' shape (prepared on first use) and its parameters. */
  statementFor(apiKeyId: string, f: NotificationFilters, cursor: Cursor | null) {
    const shape = pageShape(f, cursor);
    const key = `${+shape.byUser}${+shape.document}${+shape.location}${+shape.cursor}${+shape.descending}${shape.ids}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      const sql = pageSql(shape);
      page = { sql, statement: this.sqlite.prepare<unknown[], Row>(sql).raw(), documentFixed: !shape.byUser };
      this.pages.set(key, page);
    }
    return { page, params: pageParams(apiKeyId, f, cursor, shape) };
  }

  read(apiKeyId: string, f: NotificationFilters, cursor: Cursor | null): NotificationItem[] {
    const { page, params } = this.statementFor(apiKeyId, f, cursor);
    return describePage(page.statement.all(...params), apiKeyId, f, page.documentFixed);
  }
}

const statementsBySqlite = new WeakMap<Database.Database, NotificationStatements>();

function statementsOf(sqlite: Database.Database): NotificationStatements {
  let statements = statementsBySqlite.get(sqlite);
  if (statements === undefined) {
    statements = new NotificationStatements(sqlite);
    statementsBySqlite.set(sqlite, statements);
  }
  return statements;
}

/**
 * Up to `pageSize + 1` notifications after the cursor (the extra one tells whether a next page exists), each
 * described with its recipients.
 */
export function readNotificationPage(db: Db, apiKeyId: string, filters: NotificationFilters, cursor: Cursor | null): NotificationItem[] {
  return statementsOf(connectionOf(db)).read(apiKeyId, filters, cursor);
}

/** SQLite's plan (EXPLAIN QUERY PLAN details) for the page statement of these filters: what the tests pin. */
export function explainNotificationPage(sqlite: Database.Database, apiKeyId: string, filters: NotificationFilters, cursor: Cursor | null): string[] {
  const { page, params } = statementsOf(sqlite).statementFor(apiKeyId, filters, cursor);
  return sqlite
    .prepare<unknown[], { detail: string }>(`explain query plan ${page.sql}`)
    .all(...params)
    .map((row) => row.detail);
}
