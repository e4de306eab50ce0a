// The reads of /v2/notifications/get on statements prepared once: the SQL is the text drizzle builds for the
// same filters (so SQLite plans it the same, on the same indexes), kept per filter shape instead of being
// rebuilt and recompiled on every call, and its rows are mapped here the way drizzle maps them (JSON columns
// parsed, the boolean column as a boolean). Page and recipients are read in one read transaction: one
// snapshot, and one read lock instead of two.
import type Database from 'better-sqlite3';
import type { Cursor } from '../db/pagination.ts';
import type { notifications, StoredUser } from '../db/schema.ts';

export type NotificationRow = typeof notifications.$inferSelect;
export interface Recipient {
  userId: string;
  readAt: number | null;
}

export interface NotificationFilters {
  organizationId: string;
  documentId?: string | undefined;
  locationId?: string | undefined;
  userId?: string | undefined;
  notificationIds?: string[] | undefined;
  pageSize: number;
  order: 'asc' | 'desc';
}

const N = '"notifications"';
const R = '"notification_recipients"';
const COLUMNS = ['api_key_id', 'organization_id', 'id', 'document_id', 'location_id', 'source', 'source_data', 'action_user', 'headline_template', 'headline_data', 'body', 'resolver', 'context_access', 'timestamp'];
/** Recipients are read for this many notifications per statement; a bigger page takes several. */
const RECIPIENT_CHUNK = 64;

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** The page query for one filter shape, with its parameters in the order its `?` appear. */
function pageSql(shape: { byUser: boolean; document: boolean; location: boolean; cursor: boolean; descending: boolean; ids: number }): string {
  const before = shape.descending ? '<' : '>';
  const direction = shape.descending ? 'desc' : 'asc';
  if (shape.byUser) {
    const conditions = [`${R}."api_key_id" = ?`, `${R}."organization_id" = ?`, `${R}."user_id" = ?`];
    if (shape.cursor) conditions.push(`(${R}."timestamp" ${before} ? or (${R}."timestamp" = ? and ${R}."notification_id" ${before} ?))`);
    if (shape.document) conditions.push(`${R}."document_id" = ?`);
    if (shape.ids > 0) conditions.push(`${R}."notification_id" in (${placeholders(shape.ids)})`);
    if (shape.location) conditions.push(`${N}."location_id" = ?`);
    return (
      `select ${COLUMNS.map((c) => `${N}."${c}"`).join(', ')} from ${R} inner join ${N} on (${N}."api_key_id" = ${R}."api_key_id" and ${N}."organization_id" = ${R}."organization_id" and ${N}."id" = ${R}."notification_id")` +
      ` where (${conditions.join(' and ')}) order by ${R}."timestamp" ${direction}, ${R}."notification_id" ${direction} limit ?`
    );
  }
  const conditions = [`${N}."api_key_id" = ?`, `${N}."organization_id" = ?`, `${N}."document_id" = ?`];
  if (shape.cursor) conditions.push(`(${N}."timestamp" ${before} ? or (${N}."timestamp" = ? and ${N}."id" ${before} ?))`);
  if (shape.location) conditions.push(`${N}."location_id" = ?`);
  if (shape.ids > 0) conditions.push(`${N}."id" in (${placeholders(shape.ids)})`);
  return `select ${COLUMNS.map((c) => `"${c}"`).join(', ')} from ${N} where (${conditions.join(' and ')}) order by ${N}."timestamp" ${direction}, ${N}."id" ${direction} limit ?`;
}

type Row = unknown[];

class NotificationStatements {
  private readonly pages = new Map<string, Database.Statement<unknown[], Row>>();
  private readonly recipients = new Map<number, Database.Statement<unknown[], Row>>();
  readonly read: (apiKeyId: string, filters: NotificationFilters, cursor: Cursor | null) => { rows: NotificationRow[]; recipients: Map<string, Recipient[]> };

  constructor(private readonly sqlite: Database.Database) {
    this.read = sqlite.transaction((apiKeyId: string, filters: NotificationFilters, cursor: Cursor | null) => {
      const rows = this.page(apiKeyId, filters, cursor);
      const ids: string[] = [];
      for (let i = 0; i < rows.length && i < filters.pageSize; i++) ids.push((rows[i] as NotificationRow).id);
      return { rows, recipients: this.recipientsOf(apiKeyId, filters.organizationId, ids) };
    }).deferred;
  }

  private page(apiKeyId: string, f: NotificationFilters, cursor: Cursor | null): NotificationRow[] {
    const byUser = f.userId !== undefined && f.userId !== '';
    const shape = { byUser, document: byUser && !!f.documentId, location: !!f.locationId, cursor: cursor !== null, descending: f.order === 'desc', ids: f.notificationIds?.length ?? 0 };
    const key = `${+shape.byUser}${+shape.document}${+shape.location}${+shape.cursor}${+shape.descending}${shape.ids}`;
    let statement = this.pages.get(key);
    if (statement === undefined) {
      statement = this.sqlite.prepare<unknown[], Row>(pageSql(shape)).raw();
      this.pages.set(key, statement);
    }
    const params: unknown[] = [apiKeyId, f.organizationId];
    if (byUser) {
      params.push(f.userId);
      if (cursor) params.push(cursor[0], cursor[0], cursor[1]);
      if (shape.document) params.push(f.documentId);
      if (f.notificationIds) params.push(...f.notificationIds);
      if (shape.location) params.push(f.locationId);
    } else {
      params.push(f.documentId);
      if (cursor) params.push(cursor[0], cursor[0], cursor[1]);
      if (shape.location) params.push(f.locationId);
      if (f.notificationIds) params.push(...f.notificationIds);
    }
    params.push(f.pageSize + 1);
    return statement.all(...params).map(toNotification);
  }

  private recipientsOf(apiKeyId: string, organizationId: string, ids: string[]): Map<string, Recipient[]> {
    const byNotification = new Map<string, Recipient[]>();
    for (let start = 0; start < ids.length; start += RECIPIENT_CHUNK) {
      const chunk = ids.slice(start, start + RECIPIENT_CHUNK);
      let statement = this.recipients.get(chunk.length);
      if (statement === undefined) {
        statement = this.sqlite
          .prepare<unknown[], Row>(`select "notification_id", "user_id", "read_at" from ${R} where (${R}."api_key_id" = ? and ${R}."organization_id" = ? and ${R}."notification_id" in (${placeholders(chunk.length)}))`)
          .raw();
        this.recipients.set(chunk.length, statement);
      }
      for (const [notificationId, userId, readAt] of statement.all(apiKeyId, organizationId, ...chunk) as Array<[string, string, number | null]>) {
        let list = byNotification.get(notificationId);
        if (list === undefined) byNotification.set(notificationId, (list = []));
        list.push({ userId, readAt });
      }
    }
    return byNotification;
  }
}

const json = <T>(value: unknown): T | null => (value === null ? null : (JSON.parse(value as string) as T));

/** A raw row in COLUMNS order as drizzle would give it. */
function toNotification(row: Row): NotificationRow {
  return {
    apiKeyId: row[0] as string,
    organizationId: row[1] as string,
    id: row[2] as string,
    documentId: row[3] as string,
    locationId: row[4] as string | null,
    source: row[5] as NotificationRow['source'],
    sourceData: json<Record<string, unknown>>(row[6]),
    actionUser: json<StoredUser>(row[7]) as StoredUser,
    headlineTemplate: row[8] as string | null,
    headlineData: json<Record<string, unknown>>(row[9]),
    body: row[10] as string | null,
    resolver: Number(row[11]) === 1,
    contextAccess: json<Record<string, string | number>>(row[12]),
    timestamp: row[13] as number,
  };
}

const statementsBySqlite = new WeakMap<Database.Database, NotificationStatements>();

/**
 * Up to `pageSize + 1` notifications after the cursor (the extra one tells whether a next page exists), and
 * the recipients of the first `pageSize` of them.
 */
export function readNotificationPage(sqlite: Database.Database, apiKeyId: string, filters: NotificationFilters, cursor: Cursor | null) {
  let statements = statementsBySqlite.get(sqlite);
  if (statements === undefined) {
    statements = new NotificationStatements(sqlite);
    statementsBySqlite.set(sqlite, statements);
  }
  return statements.read(apiKeyId, filters, cursor);
}
