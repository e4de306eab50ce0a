// Every database read the admin UI's endpoints make, in one place: functions that take the workspace id or the
// API key id and return plain rows (the storage layer takes them over later). Lists are keyset-paged on the
// tables' own indexes (never OFFSET): each page asks for `limit + 1` rows strictly after the cursor's sort key.
// Statements are prepared once per text.
import type Database from 'better-sqlite3';
import { and, count as countOf, eq, sql } from 'drizzle-orm';
import { webhookDeliveries, type DeliveryDb } from '../webhooks/delivery-store.ts';

export type Dir = 'asc' | 'desc';
export type SortKey = ReadonlyArray<string | number>;
export interface PageArgs {
  after: SortKey | null;
  dir: Dir;
  limit: number;
}

const DAY = 24 * 60 * 60 * 1000;

/** Rows as SQLite gives them: integers for booleans. */
type Row = Record<string, unknown>;

export function createAdminQueries(sqlite: Database.Database) {
  const cache = new Map<string, Database.Statement>();
  const prepare = (text: string) => {
    let statement = cache.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      cache.set(text, statement);
    }
    return statement;
  };
  const all = <T = Row>(text: string, ...params: unknown[]) => prepare(text).all(...params) as T[];
  const one = <T = Row>(text: string, ...params: unknown[]) => prepare(text).get(...params) as T | undefined;
  const count = (text: string, ...params: unknown[]) => (one<{ n: number }>(text, ...params)?.n ?? 0);

  /**
   * The keyset condition and order for sort columns `cols`: `(a, b) > (?, ?)` ascending, `<` descending (SQLite
   * compares row values and uses the index for them).
   */
  const keyset = (cols: string[], page: PageArgs) => {
    const op = page.dir === 'asc' ? '>' : '<';
    const tuple = cols.length === 1 ? (cols[0] as string) : `(${cols.join(', ')})`;
    const marks = cols.length === 1 ? '?' : `(${cols.map(() => '?').join(', ')})`;
    return {
      where: page.after ? ` AND ${tuple} ${op} ${marks}` : '',
      params: page.after ? [...page.after] : [],
      order: ` ORDER BY ${cols.map((c) => `${c} ${page.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ')} LIMIT ${page.limit + 1}`,
    };
  };
  /**
   * The keyset condition and order for a sort on `expr` (a column or an indexed expression, with its collation)
   * then `idCol`. Written as `expr >= ? AND (expr > ? OR id > ?)` rather than as a row value: SQLite seeks an index
   * on the first term even when the expression carries a collation (a row value with COLLATE NOCASE is searched
   * from the start of the key's range instead, which reads every earlier page).
   */
  const sortedKeyset = (expr: string, idCol: string, page: PageArgs) => {
    const [op, d] = page.dir === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
    return {
      where: page.after ? ` AND ${expr} ${op}= ? AND (${expr} ${op} ? OR ${idCol} ${op} ?)` : '',
      params: page.after ? [page.after[0], page.after[0], page.after[1]] : [],
      order: ` ORDER BY ${expr} ${d}, ${idCol} ${d} LIMIT ${page.limit + 1}`,
    };
  };
  /** The keyset of a list sorted by its id or by one of `sorts` (each indexed with the id after it). */
  const sortedBy = (sort: string, idCol: string, sorts: Record<string, string>, page: PageArgs) => {
    const expr = sorts[sort];
    return expr === undefined ? keyset([idCol], page) : sortedKeyset(expr, idCol, page);
  };
  /** A search: an id prefix (an index range) or a part of the name (a scan that stops at the page's end). */
  const search = (q: string | undefined, idCol: string, nameCol: string) =>
    q ? { where: ` AND ((${idCol} >= ? AND ${idCol} < ?) OR ${nameCol} LIKE ? ESCAPE '\\')`, params: [q, `${q}\uffff`, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] } : { where: '', params: [] };

  return {
    // ----- workspace and keys ---------------------------------------------------------------------------
    keysOf: (workspaceId: string) =>
      all<{ id: string; name: string | null; type: string; disabled: number; disabledAt: number | null }>(
        'SELECT id, name, type, disabled, disabled_at AS disabledAt FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id',
        workspaceId,
      ),
    /**
     * Disables or enables a key. A write to api_keys on this connection drops the verified-credentials cache
     * (http/credentials.ts), so the next call with the key is decided on this row.
     */
    setKeyDisabled: (apiKeyId: string, disabled: boolean, now: number) =>
      prepare('UPDATE api_keys SET disabled = ?, disabled_at = ?, updated_at = ? WHERE id = ?').run(disabled ? 1 : 0, disabled ? now : null, now, apiKeyId).changes === 1,
    keyOwner: (apiKeyId: string) => one<{ workspaceId: string }>('SELECT workspace_id AS workspaceId FROM api_keys WHERE id = ?', apiKeyId)?.workspaceId ?? null,
    workspaceCounts(workspaceId: string) {
      const tables = ['organizations', 'documents', 'users', 'notifications', 'crdt_documents', 'webhook_endpoints', 'agents', 'workflow_definitions'];
      return Object.fromEntries(tables.map((t) => [t, count(`SELECT count(*) AS n FROM ${t} WHERE api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?)`, workspaceId)]));
    },

    /** What one key holds: the figures of its page. */
    keyCounts(apiKeyId: string) {
      const tables = ['organizations', 'documents', 'users', 'notifications', 'activities', 'crdt_documents', 'webhook_endpoints', 'agents'];
      return Object.fromEntries(tables.map((t) => [t, count(`SELECT count(*) AS n FROM ${t} WHERE api_key_id = ?`, apiKeyId)]));
    },

    // ----- organizations ---------------------------------------------------------------------------------
    /** By id, by name (ignoring case) or by last update: each on its index (organizations_name, organizations_updated). */
    organizationsPage(apiKeyId: string, q: string | undefined, sort: EntitySort, page: PageArgs) {
      const s = search(q, 'id', 'name');
      const k = sortedBy(sort, 'id', ENTITY_SORTS, page);
      return all<{ id: string; name: string; disabled: number; createdAt: number; updatedAt: number }>(
        `SELECT id, name, disabled, created_at AS createdAt, updated_at AS updatedAt FROM organizations WHERE api_key_id = ?${s.where}${k.where}${k.order}`,
        apiKeyId,
        ...s.params,
        ...k.params,
      );
    },
    organization: (apiKeyId: string, organizationId: string) =>
      one<{ id: string; name: string; disabled: number; createdAt: number; updatedAt: number }>(
        'SELECT id, name, disabled, created_at AS createdAt, updated_at AS updatedAt FROM organizations WHERE api_key_id = ? AND id = ?',
        apiKeyId,
        organizationId,
      ),
    folders: (apiKeyId: string, organizationId: string, limit: number) =>
      all<{ id: string; name: string; parentId: string; accessType: string }>(
        'SELECT id, name, parent_id AS parentId, access_type AS accessType FROM folders WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT ?',
        apiKeyId,
        organizationId,
        limit,
      ),
    groups: (apiKeyId: string, organizationId: string) =>
      all<{ id: string; name: string; members: number }>(
        `SELECT g.id, g.name, (SELECT count(*) FROM user_group_members m WHERE m.api_key_id = g.api_key_id AND m.organization_id = g.organization_id AND m.group_id = g.id) AS members
         FROM user_groups g WHERE g.api_key_id = ? AND g.organization_id = ? ORDER BY g.id LIMIT 500`,
        apiKeyId,
        organizationId,
      ),
    organizationCounts: (apiKeyId: string, organizationId: string) => ({
      documents: count('SELECT count(*) AS n FROM documents WHERE api_key_id = ? AND organization_id = ?', apiKeyId, organizationId),
      members: count('SELECT count(DISTINCT user_id) AS n FROM memberships WHERE api_key_id = ? AND organization_id = ?', apiKeyId, organizationId),
      notifications: count('SELECT count(*) AS n FROM notifications WHERE api_key_id = ? AND organization_id = ?', apiKeyId, organizationId),
      activities: count('SELECT count(*) AS n FROM activities WHERE api_key_id = ? AND organization_id = ?', apiKeyId, organizationId),
    }),
    /** Activity per day over the last `days` days (oldest first, empty days included), for sparklines. */
    activityByDay(apiKeyId: string, organizationId: string, documentId: string | null, days = 30) {
      const since = Date.now() - days * DAY;
      const rows = documentId
        ? all<{ day: number; n: number }>('SELECT timestamp / 86400000 AS day, count(*) AS n FROM activities WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND timestamp >= ? GROUP BY day', apiKeyId, organizationId, documentId, since)
        : all<{ day: number; n: number }>('SELECT timestamp / 86400000 AS day, count(*) AS n FROM activities WHERE api_key_id = ? AND organization_id = ? AND timestamp >= ? GROUP BY day', apiKeyId, organizationId, since);
      const byDay = new Map(rows.map((r) => [Math.floor(r.day), r.n]));
      const today = Math.floor(Date.now() / DAY);
      return Array.from({ length: days }, (_, i) => {
        const day = today - days + 1 + i;
        return { day: new Date(day * DAY).toISOString().slice(0, 10), count: byDay.get(day) ?? 0 };
      });
    },

    /** The first version of the data browser's organization view (whole lists, bounded): kept for its API clients. */
    organizationTree(apiKeyId: string, organizationId: string) {
      const groups = all<{ id: string; name: string }>('SELECT id, name FROM user_groups WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 1000', apiKeyId, organizationId);
      return {
        folders: all<{ id: string; name: string; parentId: string; accessType: string }>('SELECT id, name, parent_id AS parentId, access_type AS accessType FROM folders WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT 2000', apiKeyId, organizationId),
        documents: all<{ id: string; name: string; folderId: string | null; accessType: string; disabled: number }>(
          'SELECT id, name, folder_id AS folderId, access_type AS accessType, disabled FROM documents WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 2000',
          apiKeyId,
          organizationId,
        ).map((d) => ({ ...d, disabled: d.disabled === 1 })),
        groups: groups.map((g) => ({
          ...g,
          userIds: all<{ userId: string }>('SELECT user_id AS userId FROM user_group_members WHERE api_key_id = ? AND organization_id = ? AND group_id = ? ORDER BY user_id LIMIT 1000', apiKeyId, organizationId, g.id).map((u) => u.userId),
        })),
        members: all<{ userId: string; level: string; resourceId: string; accessRole: string; expiresAt: number | null }>(
          'SELECT user_id AS userId, level, resource_id AS resourceId, access_role AS accessRole, expires_at AS expiresAt FROM memberships WHERE api_key_id = ? AND organization_id = ? ORDER BY user_id, level LIMIT 5000',
          apiKeyId,
          organizationId,
        ),
      };
    },

    // ----- documents -------------------------------------------------------------------------------------
    /**
     * An organization's documents (or one folder's) by id, by name (ignoring case) or by last update of the record,
     * each on its index (documents_folder*, documents_name, documents_updated).
     */
    documentsPage(apiKeyId: string, organizationId: string, folderId: string | undefined, q: string | undefined, sort: EntitySort, page: PageArgs) {
      const s = search(q, 'id', 'name');
      const k = sortedBy(sort, 'id', ENTITY_SORTS, page);
      const folder = folderId === undefined ? '' : ' AND folder_id = ?';
      return all<DocumentRow>(
        `SELECT id, name, organization_id AS organizationId, folder_id AS folderId, access_type AS accessType, disabled, updated_at AS updatedAt FROM documents
         WHERE api_key_id = ? AND organization_id = ?${folder}${s.where}${k.where}${k.order}`,
        apiKeyId,
        organizationId,
        ...(folderId === undefined ? [] : [folderId]),
        ...s.params,
        ...k.params,
      );
    },
    document: (apiKeyId: string, organizationId: string, documentId: string) =>
      one<DocumentRow>(
        'SELECT id, name, organization_id AS organizationId, folder_id AS folderId, access_type AS accessType, disabled, updated_at AS updatedAt FROM documents WHERE api_key_id = ? AND organization_id = ? AND id = ?',
        apiKeyId,
        organizationId,
        documentId,
      ),
    /** The folder and its ancestors, root first. */
    folderPath(apiKeyId: string, organizationId: string, folderId: string) {
      const folder = one<{ id: string; name: string; ancestors: string }>('SELECT id, name, ancestors FROM folders WHERE api_key_id = ? AND organization_id = ? AND id = ?', apiKeyId, organizationId, folderId);
      if (!folder) return [];
      let ancestors: string[] = [];
      try {
        ancestors = (JSON.parse(folder.ancestors) as unknown[]).filter((a): a is string => typeof a === 'string');
      } catch {
        ancestors = [];
      }
      // ancestors that are not folders (the organization's root) are left out
      const named = ancestors.flatMap((id) => one<{ id: string; name: string }>('SELECT id, name FROM folders WHERE api_key_id = ? AND organization_id = ? AND id = ?', apiKeyId, organizationId, id) ?? []);
      return [...named, { id: folder.id, name: folder.name }];
    },
    documentCounts: (apiKeyId: string, organizationId: string, documentId: string) => ({
      notifications: count('SELECT count(*) AS n FROM notifications WHERE api_key_id = ? AND organization_id = ? AND document_id = ?', apiKeyId, organizationId, documentId),
      activities: count('SELECT count(*) AS n FROM activities WHERE api_key_id = ? AND organization_id = ? AND document_id = ?', apiKeyId, organizationId, documentId),
      comments: count('SELECT count(*) AS n FROM comment_annotations WHERE api_key_id = ? AND organization_id = ? AND document_id = ?', apiKeyId, organizationId, documentId),
      recordings: count('SELECT count(*) AS n FROM recordings WHERE api_key_id = ? AND organization_id = ? AND document_id = ?', apiKeyId, organizationId, documentId),
    }),

    // ----- collaborative documents ----------------------------------------------------------------------
    editors: (apiKeyId: string, organizationId: string, documentId: string) =>
      all<CrdtListRow>(`${CRDT_COLUMNS} WHERE api_key_id = ? AND organization_id = ? AND document_id = ? ORDER BY editor_id LIMIT 200`, apiKeyId, organizationId, documentId),
    crdtPage(apiKeyId: string, organizationId: string | undefined, q: string | undefined, page: PageArgs) {
      const k = keyset(['organization_id', 'document_id', 'editor_id'], page);
      const org = organizationId === undefined ? '' : ' AND organization_id = ?';
      const s = q ? { where: ' AND ((document_id >= ? AND document_id < ?) OR (organization_id >= ? AND organization_id < ?))', params: [q, `${q}\uffff`, q, `${q}\uffff`] } : { where: '', params: [] };
      return all<CrdtListRow>(`${CRDT_COLUMNS} WHERE api_key_id = ?${org}${s.where}${k.where}${k.order}`, apiKeyId, ...(organizationId === undefined ? [] : [organizationId]), ...s.params, ...k.params);
    },
    crdt: (apiKeyId: string, organizationId: string, documentId: string, editorId: string) =>
      one<CrdtListRow>(`${CRDT_COLUMNS} WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ?`, apiKeyId, organizationId, documentId, editorId),

    // ----- users and memberships -------------------------------------------------------------------------
    /** By id, or by name (ignoring case; users without a name first, as ''): the users_name index's expression. */
    usersPage(apiKeyId: string, q: string | undefined, sort: UserSort, page: PageArgs) {
      const s = search(q, 'id', 'name');
      const k = sortedBy(sort, 'id', USER_SORTS, page);
      return all<{ id: string; name: string | null; email: string | null }>(`SELECT id, name, email FROM users WHERE api_key_id = ?${s.where}${k.where}${k.order}`, apiKeyId, ...s.params, ...k.params);
    },
    user: (apiKeyId: string, userId: string) => one<{ id: string; name: string | null; email: string | null }>('SELECT id, name, email FROM users WHERE api_key_id = ? AND id = ?', apiKeyId, userId),
    userNames(apiKeyId: string, ids: string[]) {
      const out = new Map<string, string | null>();
      for (const id of ids) {
        const row = one<{ name: string | null }>('SELECT name FROM users WHERE api_key_id = ? AND id = ?', apiKeyId, id);
        if (row) out.set(id, row.name);
      }
      return out;
    },
    userOrganizations: (apiKeyId: string, userId: string) =>
      all<{ organizationId: string }>('SELECT DISTINCT organization_id AS organizationId FROM memberships WHERE api_key_id = ? AND user_id = ? ORDER BY organization_id LIMIT 500', apiKeyId, userId).map((r) => r.organizationId),
    userNotificationCount: (apiKeyId: string, organizationIds: string[], userId: string) =>
      organizationIds.reduce((n, org) => n + count('SELECT count(*) AS n FROM notification_recipients WHERE api_key_id = ? AND organization_id = ? AND user_id = ?', apiKeyId, org, userId), 0),
    membershipsPage(apiKeyId: string, filter: { organizationId?: string; userId?: string }, page: PageArgs) {
      // by organization: its members in user order; by user: their memberships in organization order
      const cols = filter.organizationId !== undefined ? ['user_id', 'level', 'resource_id'] : ['organization_id', 'level', 'resource_id'];
      const k = keyset(cols, page);
      const where = [filter.organizationId !== undefined ? ' AND organization_id = ?' : '', filter.userId !== undefined ? ' AND user_id = ?' : ''].join('');
      const params = [...(filter.organizationId !== undefined ? [filter.organizationId] : []), ...(filter.userId !== undefined ? [filter.userId] : [])];
      return {
        cols,
        rows: all<{ userId: string; organizationId: string; level: string; resourceId: string; accessRole: string; expiresAt: number | null }>(
          `SELECT user_id AS userId, organization_id AS organizationId, level, resource_id AS resourceId, access_role AS accessRole, expires_at AS expiresAt
           FROM memberships WHERE api_key_id = ?${where}${k.where}${k.order}`,
          apiKeyId,
          ...params,
          ...k.params,
        ),
      };
    },
    memberIds: (apiKeyId: string, organizationId: string, limit: number) =>
      all<{ userId: string }>('SELECT DISTINCT user_id AS userId FROM memberships WHERE api_key_id = ? AND organization_id = ? LIMIT ?', apiKeyId, organizationId, limit).map((r) => r.userId),

    // ----- feed ------------------------------------------------------------------------------------------
    /**
     * Notifications of an organization (notifications_time), of a document (notifications_document) or to a user
     * (the recipients' index), by time in either direction.
     */
    notificationsPage(apiKeyId: string, organizationId: string, filter: { documentId?: string; userId?: string }, page: PageArgs) {
      const select = `SELECT n.id, n.organization_id AS organizationId, n.document_id AS documentId, n.timestamp, n.headline_template AS headlineTemplate, n.headline_data AS headlineData,
        n.body, n.action_user AS actionUser,
        (SELECT count(*) FROM notification_recipients r WHERE r.api_key_id = n.api_key_id AND r.organization_id = n.organization_id AND r.notification_id = n.id) AS recipients`;
      if (filter.userId !== undefined) {
        const k = keyset(['r.timestamp', 'r.notification_id'], page);
        const doc = filter.documentId !== undefined ? ' AND r.document_id = ?' : '';
        return {
          cols: ['timestamp', 'id'],
          rows: all<NotificationRow>(
            `${select} FROM notification_recipients r JOIN notifications n ON n.api_key_id = r.api_key_id AND n.organization_id = r.organization_id AND n.id = r.notification_id
             WHERE r.api_key_id = ? AND r.organization_id = ? AND r.user_id = ?${doc}${k.where}${k.order}`,
            apiKeyId,
            organizationId,
            filter.userId,
            ...(filter.documentId !== undefined ? [filter.documentId] : []),
            ...k.params,
          ),
        };
      }
      if (filter.documentId !== undefined) {
        const k = keyset(['n.timestamp', 'n.id'], page);
        return { cols: ['timestamp', 'id'], rows: all<NotificationRow>(`${select} FROM notifications n WHERE n.api_key_id = ? AND n.organization_id = ? AND n.document_id = ?${k.where}${k.order}`, apiKeyId, organizationId, filter.documentId, ...k.params) };
      }
      const k = keyset(['n.timestamp', 'n.id'], page);
      return { cols: ['timestamp', 'id'], rows: all<NotificationRow>(`${select} FROM notifications n WHERE n.api_key_id = ? AND n.organization_id = ?${k.where}${k.order}`, apiKeyId, organizationId, ...k.params) };
    },
    activityPage(apiKeyId: string, organizationId: string, filter: { documentId?: string; userId?: string; featureType?: string; actionType?: string }, page: PageArgs) {
      const k = keyset(['timestamp', 'id'], page);
      const parts: string[] = [];
      const params: unknown[] = [];
      for (const [col, value] of [
        ['document_id', filter.documentId],
        ['action_user_id', filter.userId],
        ['feature_type', filter.featureType],
        ['action_type', filter.actionType],
      ] as const) {
        if (value === undefined) continue;
        parts.push(` AND ${col} = ?`);
        params.push(value);
      }
      return all<ActivityRow>(
        `SELECT id, organization_id AS organizationId, document_id AS documentId, timestamp, feature_type AS featureType, action_type AS actionType, action_user_id AS actionUserId,
         display_message_template AS template, display_message_template_data AS templateData FROM activities WHERE api_key_id = ? AND organization_id = ?${parts.join('')}${k.where}${k.order}`,
        apiKeyId,
        organizationId,
        ...params,
        ...k.params,
      );
    },

    // ----- search ----------------------------------------------------------------------------------------
    /** The command palette: each kind by id prefix or name part, a few of each, within the workspace's keys. */
    search(apiKeyIds: string[], q: string, each: number) {
      const hits: Array<{ kind: 'organization' | 'folder' | 'document' | 'user' | 'webhook'; apiKey: string; organizationId: string | null; id: string; name: string | null }> = [];
      const s = search(q, 'id', 'name');
      for (const apiKeyId of apiKeyIds) {
        for (const r of all<{ id: string; name: string }>(`SELECT id, name FROM organizations WHERE api_key_id = ?${s.where} LIMIT ?`, apiKeyId, ...s.params, each)) hits.push({ kind: 'organization', apiKey: apiKeyId, organizationId: null, ...r });
        for (const r of all<{ id: string; name: string; organizationId: string }>(`SELECT id, name, organization_id AS organizationId FROM documents WHERE api_key_id = ?${s.where} LIMIT ?`, apiKeyId, ...s.params, each)) {
          hits.push({ kind: 'document', apiKey: apiKeyId, organizationId: r.organizationId, id: r.id, name: r.name });
        }
        for (const r of all<{ id: string; name: string; organizationId: string }>(`SELECT id, name, organization_id AS organizationId FROM folders WHERE api_key_id = ?${s.where} LIMIT ?`, apiKeyId, ...s.params, each)) {
          hits.push({ kind: 'folder', apiKey: apiKeyId, organizationId: r.organizationId, id: r.id, name: r.name });
        }
        const u = search(q, 'id', "coalesce(name, '') || ' ' || coalesce(email, '')");
        for (const r of all<{ id: string; name: string | null }>(`SELECT id, name FROM users WHERE api_key_id = ?${u.where} LIMIT ?`, apiKeyId, ...u.params, each)) hits.push({ kind: 'user', apiKey: apiKeyId, organizationId: null, ...r });
        const w = search(q, 'id', "url || ' ' || coalesce(description, '')");
        for (const r of all<{ id: string; name: string }>(`SELECT id, url AS name FROM webhook_endpoints WHERE api_key_id = ?${w.where} LIMIT ?`, apiKeyId, ...w.params, each)) hits.push({ kind: 'webhook', apiKey: apiKeyId, organizationId: null, ...r });
      }
      return hits;
    },

    // ----- mail ------------------------------------------------------------------------------------------
    /**
     * A workspace's mail by time: its own (login links) and each of its keys', every source a keyset range of its
     * index (mail_outbox_workspace, mail_outbox_key), merged. A mail of both the workspace and one of its keys is
     * listed once.
     */
    mailPage(workspaceId: string, page: PageArgs) {
      const k = keyset(['created_at', 'id'], page);
      const select = 'SELECT id, kind, to_address AS "to", subject, status, last_error AS lastError, created_at AS createdAt, sent_at AS sentAt FROM mail_outbox';
      const keys = all<{ id: string }>('SELECT id FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id', workspaceId);
      const byId = new Map<string, MailRow>();
      for (const row of all<MailRow>(`${select} WHERE workspace_id = ?${k.where}${k.order}`, workspaceId, ...k.params)) byId.set(row.id, row);
      for (const key of keys) for (const row of all<MailRow>(`${select} WHERE api_key_id = ?${k.where}${k.order}`, key.id, ...k.params)) byId.set(row.id, row);
      const sign = page.dir === 'asc' ? 1 : -1;
      return [...byId.values()].sort((a, b) => sign * (a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))).slice(0, page.limit + 1);
    },
    mailOne: (workspaceId: string, id: string) =>
      one<{ id: string; kind: string; to: string; subject: string; status: string; createdAt: number; bodyEnc: string }>(
        `SELECT id, kind, to_address AS "to", subject, status, created_at AS createdAt, body_enc AS bodyEnc FROM mail_outbox
         WHERE id = ? AND (workspace_id = ? OR api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?))`,
        id,
        workspaceId,
        workspaceId,
      ),

    // ----- gauges ----------------------------------------------------------------------------------------
    /** Webhook events written but not yet turned into deliveries (the outbox). */
    outboxDepth: () => count('SELECT count(*) AS n FROM webhook_events WHERE dispatched_at IS NULL'),
    /** The endpoint of a key (for the test event). */
    endpoint: (apiKeyId: string, endpointId: string) => one<{ id: string; url: string; disabled: number }>('SELECT id, url, disabled FROM webhook_endpoints WHERE api_key_id = ? AND id = ?', apiKeyId, endpointId),
    endpointSecret: (apiKeyId: string, endpointId: string) => one<{ s: string }>('SELECT secret_enc AS s FROM webhook_endpoints WHERE api_key_id = ? AND id = ?', apiKeyId, endpointId)?.s ?? null,
    endpointTypes(apiKeyId: string, endpointId: string): string[] {
      const row = one<{ filterTypes: string | null }>('SELECT filter_types AS filterTypes FROM webhook_endpoints WHERE api_key_id = ? AND id = ?', apiKeyId, endpointId);
      try {
        const types: unknown = row?.filterTypes ? JSON.parse(row.filterTypes) : null;
        return Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : [];
      } catch {
        return [];
      }
    },
  };
}

/** How the organizations and documents lists sort: by id (the key), by name ignoring case, by last update. */
export const ENTITY_SORTS: Record<string, string> = { name: 'name COLLATE NOCASE', updated: 'updated_at' };
export type EntitySort = 'id' | 'name' | 'updated';
/** The users list: by id, or by name as the users_name index has it (no name sorts as ''). */
export const USER_SORTS: Record<string, string> = { name: "(CASE WHEN name IS NULL THEN '' ELSE name END) COLLATE NOCASE" };
export type UserSort = 'id' | 'name';

export interface DocumentRow {
  id: string;
  name: string;
  organizationId: string;
  folderId: string | null;
  accessType: string;
  disabled: number;
  updatedAt: number;
}

export interface MailRow {
  id: string;
  kind: string;
  to: string;
  subject: string;
  status: string;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

const CRDT_COLUMNS = `SELECT api_key_id AS apiKey, organization_id AS organizationId, document_id AS documentId, editor_id AS editorId, type, content_key AS contentKey,
  update_count AS updateCount, coalesce(length(snapshot), 0) AS snapshotBytes, updated_at AS updatedAt, last_updated_by AS lastUpdatedBy, compacted_at AS compactedAt FROM crdt_documents`;

export interface CrdtListRow {
  apiKey: string;
  organizationId: string;
  documentId: string;
  editorId: string;
  type: string;
  contentKey: string;
  updateCount: number;
  snapshotBytes: number;
  updatedAt: number;
  lastUpdatedBy: string | null;
  compactedAt: number | null;
}

export interface NotificationRow {
  id: string;
  organizationId: string;
  documentId: string;
  timestamp: number;
  headlineTemplate: string | null;
  headlineData: string | null;
  body: string | null;
  actionUser: string;
  recipients: number;
}

export interface ActivityRow {
  id: string;
  organizationId: string;
  documentId: string | null;
  timestamp: number;
  featureType: string;
  actionType: string;
  actionUserId: string;
  template: string | null;
  templateData: string | null;
}

export type AdminQueries = ReturnType<typeof createAdminQueries>;

/** Deliveries in `webhooks.db` with a status (pending: waiting for an attempt; failed: every attempt failed). */
export function deliveriesWithStatus(deliveries: DeliveryDb, status: 'pending' | 'failed'): number {
  return deliveries.select({ n: countOf() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, status)).get()?.n ?? 0;
}

/** What a webhook delivery sent: the exact body (the same on every attempt; each attempt is signed anew). */
export function deliveryOf(deliveries: DeliveryDb, apiKeyId: string, messageId: string, endpointId: string) {
  const w = webhookDeliveries;
  return deliveries.select({ url: w.url, body: w.body, status: w.status, attempts: w.attempts }).from(w).where(and(eq(w.apiKeyId, apiKeyId), eq(w.eventId, messageId), eq(w.target, endpointId))).get();
}

/** One attempt's headers: the request's as sent and the answer's as received (null on attempts recorded before they were kept). */
export function attemptHeadersOf(deliveries: DeliveryDb, apiKeyId: string, attemptId: string) {
  const row = deliveries.get<{ eventId: string; target: string; timestamp: number; requestHeaders: string | null; responseHeaders: string | null; omitted: number }>(
    sql`SELECT event_id AS eventId, target, timestamp, request_headers AS requestHeaders, response_headers AS responseHeaders, response_headers_omitted AS omitted
        FROM webhook_attempts WHERE api_key_id = ${apiKeyId} AND id = ${attemptId}`,
  );
  if (!row) return undefined;
  const pairs = (text: string | null) => {
    if (text === null) return null;
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string') : null;
  };
  return { eventId: row.eventId, target: row.target, timestamp: row.timestamp, requestHeaders: pairs(row.requestHeaders), responseHeaders: pairs(row.responseHeaders), responseHeadersOmitted: row.omitted };
}
