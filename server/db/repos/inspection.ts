// The admin UI's views (server/admin/): what a signed-in workspace sees of its keys' data. Workspace-wide views take
// the session's WorkspaceScope and reach only that workspace's keys; a key's data takes a TenantScope, which only
// `keyScope` makes here, from the workspace scope (a key of another workspace gets none, so the admin answers 404).
// Lists are keyset-paged on the tables' own indexes (never OFFSET): each page asks for `limit + 1` rows strictly
// after the cursor's sort key. The statements are plain SQL text with `?` placeholders, written once for both engines
// (engine.ts; test/pg/inspection.test.ts runs them on both and compares every answer): on SQLite each is prepared
// once per connection and text, on PostgreSQL its placeholders are numbered. A view of one statement is a read; a
// view of several reads them as one instant (engine.snapshot: the caller's unit of work, else a read transaction on
// SQLite, REPEATABLE READ on PostgreSQL).
//
// What the engines' SQL differs in is `Words` below, one set per engine; the rest is the same text on both. Rows
// come back as SQLite gives them: booleans as 0/1 (`CAST(x AS INTEGER)`), JSON columns as their text (`CAST(x AS
// TEXT)`: PostgreSQL's `json` keeps it as written), integers as numbers (the PostgreSQL engine reads bigint as a
// number), aliases double-quoted (PostgreSQL folds unquoted names). Lookups of a list of ids (a member's name, a
// user's notifications per organization, a folder's ancestors, a group's members) are one statement each, the ids
// one parameter (Words.inList).
import type Database from 'better-sqlite3';
import type { Db } from '../client.ts';
import { connectionOf } from '../connection.ts';
import type { Engine, Q } from '../engine.ts';
import type { PgDb } from '../pg/engine.ts';
import { preparedFor } from '../prepared.ts';
import type { TenantScope, WorkspaceScope } from '../scope.ts';
import { adminScope, crdtFilter, daysSince, keyset, lastDays, type PageArgs, paletteSearches, searchFilter, type Sort, sortedBy } from './inspection-sql.ts';

export type { Dir, PageArgs, SortKey } from './inspection-sql.ts';

/** Rows as SQLite gives them: integers for booleans. */
type Row = Record<string, unknown>;

/** A connection's statements by their text, `?` for each parameter. */
interface Statements {
  all<T = Row>(text: string, ...params: unknown[]): Promise<T[]>;
  one<T = Row>(text: string, ...params: unknown[]): Promise<T | undefined>;
  count(text: string, ...params: unknown[]): Promise<number>;
}

/** SQLite: each text prepared once per connection (a snapshot's connection has its own). */
const sqliteStatementsOf = preparedFor((db: Db): Statements => {
  const sqlite = connectionOf(db);
  const cache = new Map<string, Database.Statement>();
  const prepare = (text: string) => {
    let statement = cache.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      cache.set(text, statement);
    }
    return statement;
  };
  return {
    all: async <T>(text: string, ...params: unknown[]) => prepare(text).all(...params) as T[],
    one: async <T>(text: string, ...params: unknown[]) => prepare(text).get(...params) as T | undefined,
    count: async (text: string, ...params: unknown[]) => (prepare(text).get(...params) as { n: number } | undefined)?.n ?? 0,
  };
});

/** `?` placeholders as PostgreSQL's `$1, $2, …` (no statement here holds a `?` of its own). */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** PostgreSQL: the text's placeholders numbered, run on the unit of work's connection or the pool. */
function pgStatementsOf(db: PgDb): Statements {
  const all = async <T>(text: string, ...params: unknown[]) => (await db.$client.query({ text: numbered(text), values: params })).rows as T[];
  const one = async <T>(text: string, ...params: unknown[]) => (await all<T>(text, ...params))[0];
  return { all, one, count: async (text, ...params) => (await one<{ n: number }>(text, ...params))?.n ?? 0 };
}

/** What the engines' SQL differs in. */
interface Words {
  /** Organizations and documents by name ignoring case: the expression of their name indexes, and the cursor's value. */
  name: Sort;
  /** Users by name ignoring case, no name as '': the users_name index's expression. */
  userName: Sort;
  /** A search ignoring the case of ASCII letters (inspection-sql.ts, searchFilter). */
  like: 'LIKE' | 'ILIKE';
  /** The size of a blob in bytes. */
  bytes: (column: string) => string;
  /** `column` is one of the list given as one parameter, `list(values)`. */
  inList: (column: string) => string;
  list: (values: readonly string[]) => unknown;
}

const WORDS: Record<Engine['kind'], Words> = {
  // NOCASE folds ASCII letters only; a collated expression keeps `?` as its other side (the collation applies to both)
  sqlite: {
    name: { expr: 'name COLLATE NOCASE', param: '?' },
    userName: { expr: "(CASE WHEN name IS NULL THEN '' ELSE name END) COLLATE NOCASE", param: '?' },
    like: 'LIKE',
    bytes: (column) => `length(${column})`,
    // no array type: a JSON array's elements
    inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
    list: (values) => JSON.stringify(values),
  },
  // the PostgreSQL indexes' `lower(…)` expressions (pg/schema.ts), the cursor's value lowered the same way; under the
  // C character type the engine requires, `lower` and `ILIKE` fold ASCII letters only, as SQLite's NOCASE and LIKE
  postgres: {
    name: { expr: 'lower(name)', param: 'lower(?)' },
    userName: { expr: "lower(coalesce(name, ''))", param: 'lower(?)' },
    like: 'ILIKE',
    bytes: (column) => `octet_length(${column})`,
    inList: (column) => `${column} = ANY(?::text[])`,
    list: (values) => [...values],
  },
};

export type EntitySort = 'id' | 'name' | 'updated';
export type UserSort = 'id' | 'name';

export interface KeyListRow {
  id: string;
  name: string | null;
  type: string;
  disabled: number;
  disabledAt: number | null;
}

export interface OrganizationListRow {
  id: string;
  name: string;
  disabled: number;
  createdAt: number;
  updatedAt: number;
}

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

export type SearchHitRow = {
  kind: 'organization' | 'folder' | 'document' | 'user' | 'webhook' | 'group' | 'notification' | 'comment' | 'message';
  apiKey: string;
  organizationId: string | null;
  id: string;
  name: string | null;
  /** The document a notification or comment thread is about. */
  documentId?: string | null;
};

const KEY_COLUMNS = 'SELECT id, name, type, CAST(disabled AS INTEGER) AS disabled, disabled_at AS "disabledAt" FROM api_keys';
const ORGANIZATION_COLUMNS = 'SELECT id, name, CAST(disabled AS INTEGER) AS disabled, created_at AS "createdAt", updated_at AS "updatedAt" FROM organizations';
const DOCUMENT_COLUMNS =
  'SELECT id, name, organization_id AS "organizationId", folder_id AS "folderId", access_type AS "accessType", CAST(disabled AS INTEGER) AS disabled, updated_at AS "updatedAt" FROM documents';
const FOLDER_COLUMNS = 'SELECT id, name, parent_id AS "parentId", access_type AS "accessType" FROM folders';
const crdtColumns = (
  w: Words,
) => `SELECT api_key_id AS "apiKey", organization_id AS "organizationId", document_id AS "documentId", editor_id AS "editorId", type,
  content_key AS "contentKey", update_count AS "updateCount", coalesce(${w.bytes('snapshot')}, 0) AS "snapshotBytes", updated_at AS "updatedAt",
  last_updated_by AS "lastUpdatedBy", compacted_at AS "compactedAt" FROM crdt_documents`;

/** The engine as this repository uses it (test/admin/browse-pages.test.ts hands it SQLite's statements to plan). */
export type InspectionEngine = Pick<Engine, 'kind' | 'read' | 'snapshot'>;

export function inspectionRepo(engine: InspectionEngine) {
  const w = WORDS[engine.kind];
  const statementsOf = (db: Q): Statements => (engine.kind === 'sqlite' ? sqliteStatementsOf(db) : pgStatementsOf(db as unknown as PgDb));
  /** A view of one statement. */
  const read = <T>(run: (s: Statements) => Promise<T>) => engine.read((db) => run(statementsOf(db)));
  /** A view of several statements, as one instant. */
  const view = <T>(run: (s: Statements) => Promise<T>) => engine.snapshot((db) => run(statementsOf(db)));

  /** How the organizations and documents lists sort: by id (the key), by name ignoring case, by last update. */
  const ENTITY_SORTS: Record<string, Sort> = { name: w.name, updated: { expr: 'updated_at', param: '?' } };
  /** The users list: by id, or by name as the users_name index has it (no name sorts as ''). */
  const USER_SORTS: Record<string, Sort> = { name: w.userName };
  const CRDT_COLUMNS = crdtColumns(w);

  /** The workspace's keys as the admin lists them, in the order they were made. */
  const keysOf = (s: Statements, workspace: WorkspaceScope) =>
    s.all<KeyListRow>(`${KEY_COLUMNS} WHERE workspace_id = ? ORDER BY created_at, id`, workspace.workspaceId);

  /** Activity per day over the last `days` days (oldest first, empty days included), for sparklines. */
  async function activityByDay(s: Statements, scope: TenantScope, organizationId: string, documentId: string | null, days = 30) {
    const doc = documentId ? ' AND document_id = ?' : '';
    const rows = await s.all<{ day: number; n: number }>(
      `SELECT "timestamp" / 86400000 AS day, count(*) AS n FROM activities WHERE api_key_id = ? AND organization_id = ?${doc} AND "timestamp" >= ? GROUP BY day`,
      scope.apiKeyId,
      organizationId,
      ...(documentId ? [documentId] : []),
      daysSince(days),
    );
    return lastDays(rows, days);
  }

  /** A page of a key's collaborative documents by (organization, document, editor). */
  function crdtPageOf(s: Statements, scope: TenantScope, organizationId: string | undefined, q: string | undefined, page: PageArgs) {
    const k = keyset(['organization_id', 'document_id', 'editor_id'], page);
    const f = crdtFilter(organizationId, q);
    return s.all<CrdtListRow>(`${CRDT_COLUMNS} WHERE api_key_id = ?${f.where}${k.where}${k.order}`, scope.apiKeyId, ...f.params, ...k.params);
  }

  /** The folder and its ancestors, root first. */
  async function folderPath(s: Statements, scope: TenantScope, organizationId: string, folderId: string) {
    const apiKeyId = scope.apiKeyId;
    const folder = await s.one<{ id: string; name: string; ancestors: string }>(
      'SELECT id, name, CAST(ancestors AS TEXT) AS ancestors FROM folders WHERE api_key_id = ? AND organization_id = ? AND id = ?',
      apiKeyId,
      organizationId,
      folderId,
    );
    if (!folder) return [];
    let ancestors: string[] = [];
    try {
      ancestors = (JSON.parse(folder.ancestors) as unknown[]).filter((a): a is string => typeof a === 'string');
    } catch {
      ancestors = [];
    }
    const found = new Map(
      (
        await s.all<{ id: string; name: string }>(
          `SELECT id, name FROM folders WHERE api_key_id = ? AND organization_id = ? AND ${w.inList('id')}`,
          apiKeyId,
          organizationId,
          w.list(ancestors),
        )
      ).map((f) => [f.id, f]),
    );
    // in the ancestors' order, each as often as listed; ancestors that are not folders (the organization's root) are left out
    const named = ancestors.flatMap((id) => found.get(id) ?? []);
    return [...named, { id: folder.id, name: folder.name }];
  }

  return {
    // ----- workspace and keys ---------------------------------------------------------------------------
    /** The scope of one of the workspace's keys, for the admin session; undefined for a key of another workspace or none. */
    keyScope: (workspace: WorkspaceScope, apiKeyId: string): Promise<TenantScope | undefined> =>
      read(async (s) =>
        (await s.one('SELECT 1 AS found FROM api_keys WHERE id = ? AND workspace_id = ?', apiKeyId, workspace.workspaceId))
          ? adminScope(apiKeyId, workspace)
          : undefined,
      ),

    /** The workspace's keys, in the order they were made. */
    keys: (workspace: WorkspaceScope) => read((s) => keysOf(s, workspace)),

    /** One key of the workspace as the admin lists it. */
    key: (scope: TenantScope) => read((s) => s.one<KeyListRow>(`${KEY_COLUMNS} WHERE id = ? AND workspace_id = ?`, scope.apiKeyId, scope.workspaceId)),

    /** What the workspace's keys hold, by table (one statement: one instant). */
    workspaceCounts: (workspace: WorkspaceScope) =>
      read(async (s) => {
        const tables = ['organizations', 'documents', 'users', 'notifications', 'crdt_documents', 'webhook_endpoints', 'agents', 'workflow_definitions'];
        const row =
          (await s.one<Record<string, number>>(
            `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t} WHERE api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?)) AS "${t}"`).join(', ')}`,
            ...tables.map(() => workspace.workspaceId),
          )) ?? {};
        return Object.fromEntries(tables.map((t) => [t, row[t] ?? 0])) as Record<string, number>;
      }),

    /** What one key holds: the figures of its page (one statement: one instant). */
    keyCounts: (scope: TenantScope) =>
      read(async (s) => {
        const tables = ['organizations', 'documents', 'users', 'notifications', 'activities', 'crdt_documents', 'webhook_endpoints', 'agents'];
        const row =
          (await s.one<Record<string, number>>(
            `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t} WHERE api_key_id = ?) AS "${t}"`).join(', ')}`,
            ...tables.map(() => scope.apiKeyId),
          )) ?? {};
        return Object.fromEntries(tables.map((t) => [t, row[t] ?? 0])) as Record<string, number>;
      }),

    // ----- organizations ---------------------------------------------------------------------------------
    /** By id, by name (ignoring case) or by last update: each on its index (organizations_name, organizations_updated). */
    organizationsPage: (scope: TenantScope, q: string | undefined, sort: EntitySort, page: PageArgs) =>
      read((s) => {
        const f = searchFilter(q, 'id', 'name', w.like);
        const k = sortedBy(sort, 'id', ENTITY_SORTS, page);
        return s.all<OrganizationListRow>(
          `${ORGANIZATION_COLUMNS} WHERE api_key_id = ?${f.where}${k.where}${k.order}`,
          scope.apiKeyId,
          ...f.params,
          ...k.params,
        );
      }),

    /** One organization's page: the organization, its folders (up to `folderLimit`), groups, counts and activity; undefined when there is none. */
    organizationView: (scope: TenantScope, organizationId: string, folderLimit: number) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const organization = await s.one<OrganizationListRow>(`${ORGANIZATION_COLUMNS} WHERE api_key_id = ? AND id = ?`, apiKeyId, organizationId);
        if (!organization) return undefined;
        const folders = await s.all<{ id: string; name: string; parentId: string; accessType: string }>(
          `${FOLDER_COLUMNS} WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT ?`,
          apiKeyId,
          organizationId,
          folderLimit,
        );
        const groups = await s.all<{ id: string; name: string; members: number }>(
          `SELECT g.id, g.name, (SELECT count(*) FROM user_group_members m WHERE m.api_key_id = g.api_key_id AND m.organization_id = g.organization_id AND m.group_id = g.id) AS members
           FROM user_groups g WHERE g.api_key_id = ? AND g.organization_id = ? ORDER BY g.id LIMIT 500`,
          apiKeyId,
          organizationId,
        );
        const counts = (await s.one<{ documents: number; members: number; notifications: number; activities: number }>(
          `SELECT (SELECT count(*) FROM documents WHERE api_key_id = ? AND organization_id = ?) AS documents,
             (SELECT count(DISTINCT user_id) FROM memberships WHERE api_key_id = ? AND organization_id = ?) AS members,
             (SELECT count(*) FROM notifications WHERE api_key_id = ? AND organization_id = ?) AS notifications,
             (SELECT count(*) FROM activities WHERE api_key_id = ? AND organization_id = ?) AS activities`,
          ...[1, 2, 3, 4].flatMap(() => [apiKeyId, organizationId]),
        )) as { documents: number; members: number; notifications: number; activities: number };
        return {
          organization,
          folders,
          groups,
          counts: { documents: counts.documents, members: counts.members, notifications: counts.notifications, activities: counts.activities },
          activity: await activityByDay(s, scope, organizationId, null),
        };
      }),

    /** The first version of the data browser's organization view (whole lists, bounded): kept for its API clients. */
    organizationTree: (scope: TenantScope, organizationId: string) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const groups = await s.all<{ id: string; name: string }>(
          'SELECT id, name FROM user_groups WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 1000',
          apiKeyId,
          organizationId,
        );
        const folders = await s.all<{ id: string; name: string; parentId: string; accessType: string }>(
          `${FOLDER_COLUMNS} WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT 2000`,
          apiKeyId,
          organizationId,
        );
        const documents = (
          await s.all<{ id: string; name: string; folderId: string | null; accessType: string; disabled: number }>(
            'SELECT id, name, folder_id AS "folderId", access_type AS "accessType", CAST(disabled AS INTEGER) AS disabled FROM documents WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 2000',
            apiKeyId,
            organizationId,
          )
        ).map((d) => ({ ...d, disabled: d.disabled === 1 }));
        // each group's first 1000 members by user id, in one statement
        const memberRows = await s.all<{ groupId: string; userId: string }>(
          `SELECT group_id AS "groupId", user_id AS "userId" FROM (
             SELECT group_id, user_id, row_number() OVER (PARTITION BY group_id ORDER BY user_id) AS nth FROM user_group_members
             WHERE api_key_id = ? AND organization_id = ? AND ${w.inList('group_id')}
           ) m WHERE nth <= 1000 ORDER BY group_id, user_id`,
          apiKeyId,
          organizationId,
          w.list(groups.map((g) => g.id)),
        );
        const byGroup = new Map<string, string[]>();
        for (const r of memberRows) {
          const list = byGroup.get(r.groupId) ?? [];
          list.push(r.userId);
          byGroup.set(r.groupId, list);
        }
        const members = await s.all<{ userId: string; level: string; resourceId: string; accessRole: string; expiresAt: number | null }>(
          'SELECT user_id AS "userId", level, resource_id AS "resourceId", access_role AS "accessRole", expires_at AS "expiresAt" FROM memberships WHERE api_key_id = ? AND organization_id = ? ORDER BY user_id, level, resource_id LIMIT 5000',
          apiKeyId,
          organizationId,
        );
        return { folders, documents, groups: groups.map((g) => ({ ...g, userIds: byGroup.get(g.id) ?? [] })), members };
      }),

    // ----- documents -------------------------------------------------------------------------------------
    /**
     * An organization's documents (or one folder's) by id, by name (ignoring case) or by last update of the record,
     * each on its index (documents_folder*, documents_name, documents_updated).
     */
    documentsPage: (scope: TenantScope, organizationId: string, folderId: string | undefined, q: string | undefined, sort: EntitySort, page: PageArgs) =>
      read((s) => {
        const f = searchFilter(q, 'id', 'name', w.like);
        const k = sortedBy(sort, 'id', ENTITY_SORTS, page);
        const folder = folderId === undefined ? '' : ' AND folder_id = ?';
        return s.all<DocumentRow>(
          `${DOCUMENT_COLUMNS} WHERE api_key_id = ? AND organization_id = ?${folder}${f.where}${k.where}${k.order}`,
          scope.apiKeyId,
          organizationId,
          ...(folderId === undefined ? [] : [folderId]),
          ...f.params,
          ...k.params,
        );
      }),

    /**
     * One document's page: the document (or only its editors, for a Yjs room never added as a document), its folder
     * path (root first), counts and activity; undefined when neither is there.
     */
    documentView: (scope: TenantScope, organizationId: string, documentId: string) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const document = await s.one<DocumentRow>(
          `${DOCUMENT_COLUMNS} WHERE api_key_id = ? AND organization_id = ? AND id = ?`,
          apiKeyId,
          organizationId,
          documentId,
        );
        const editors = await s.all<CrdtListRow>(
          `${CRDT_COLUMNS} WHERE api_key_id = ? AND organization_id = ? AND document_id = ? ORDER BY editor_id LIMIT 200`,
          apiKeyId,
          organizationId,
          documentId,
        );
        if (!document && editors.length === 0) return undefined;
        const path = document?.folderId ? await folderPath(s, scope, organizationId, document.folderId) : [];
        const counts = (await s.one<{ notifications: number; activities: number; comments: number; recordings: number }>(
          `SELECT (SELECT count(*) FROM notifications WHERE api_key_id = ? AND organization_id = ? AND document_id = ?) AS notifications,
             (SELECT count(*) FROM activities WHERE api_key_id = ? AND organization_id = ? AND document_id = ?) AS activities,
             (SELECT count(*) FROM comment_annotations WHERE api_key_id = ? AND organization_id = ? AND document_id = ?) AS comments,
             (SELECT count(*) FROM recordings WHERE api_key_id = ? AND organization_id = ? AND document_id = ?) AS recordings`,
          ...[1, 2, 3, 4].flatMap(() => [apiKeyId, organizationId, documentId]),
        )) as { notifications: number; activities: number; comments: number; recordings: number };
        return {
          document,
          editors,
          path,
          counts: { notifications: counts.notifications, activities: counts.activities, comments: counts.comments, recordings: counts.recordings },
          activity: await activityByDay(s, scope, organizationId, documentId),
        };
      }),

    // ----- collaborative documents ----------------------------------------------------------------------
    crdtPage: (scope: TenantScope, organizationId: string | undefined, q: string | undefined, page: PageArgs) =>
      read((s) => crdtPageOf(s, scope, organizationId, q, page)),

    /** Every editor document of the workspace's keys (up to `limit` of each, by key, organization, document, editor). */
    workspaceCrdt: (workspace: WorkspaceScope, limit: number) =>
      view(async (s) => {
        const out: CrdtListRow[] = [];
        for (const k of await keysOf(s, workspace))
          out.push(...(await crdtPageOf(s, adminScope(k.id, workspace), undefined, undefined, { after: null, dir: 'asc', limit: limit - 1 })).slice(0, limit));
        return out;
      }),

    crdt: (scope: TenantScope, organizationId: string, documentId: string, editorId: string) =>
      read((s) =>
        s.one<CrdtListRow>(
          `${CRDT_COLUMNS} WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ?`,
          scope.apiKeyId,
          organizationId,
          documentId,
          editorId,
        ),
      ),

    // ----- users and memberships -------------------------------------------------------------------------
    /** By id, or by name (ignoring case; users without a name first, as ''): the users_name index's expression. */
    usersPage: (scope: TenantScope, q: string | undefined, sort: UserSort, page: PageArgs) =>
      read((s) => {
        // a part of the name or of the e-mail address (issue 44)
        const f = searchFilter(q, 'id', "coalesce(name, '') || ' ' || coalesce(email, '')", w.like);
        const k = sortedBy(sort, 'id', USER_SORTS, page);
        return s.all<{ id: string; name: string | null; email: string | null }>(
          `SELECT id, name, email FROM users WHERE api_key_id = ?${f.where}${k.where}${k.order}`,
          scope.apiKeyId,
          ...f.params,
          ...k.params,
        );
      }),

    /** One user's page: the user (if stored), the organizations they belong to and the notifications to them there; undefined when neither is known. */
    userView: (scope: TenantScope, userId: string) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const user = await s.one<{ id: string; name: string | null; email: string | null }>(
          'SELECT id, name, email FROM users WHERE api_key_id = ? AND id = ?',
          apiKeyId,
          userId,
        );
        const organizations = (
          await s.all<{ organizationId: string }>(
            'SELECT DISTINCT organization_id AS "organizationId" FROM memberships WHERE api_key_id = ? AND user_id = ? ORDER BY organization_id LIMIT 500',
            apiKeyId,
            userId,
          )
        ).map((r) => r.organizationId);
        if (!user && organizations.length === 0) return undefined;
        const notifications = await s.count(
          `SELECT count(*) AS n FROM notification_recipients WHERE api_key_id = ? AND ${w.inList('organization_id')} AND user_id = ?`,
          apiKeyId,
          w.list(organizations),
          userId,
        );
        return { user, organizations, notifications };
      }),

    membershipsPage: (scope: TenantScope, filter: { organizationId?: string; userId?: string }, page: PageArgs) =>
      read(async (s) => {
        // by organization: its members in user order; by user: their memberships in organization order
        const cols = filter.organizationId !== undefined ? ['user_id', 'level', 'resource_id'] : ['organization_id', 'level', 'resource_id'];
        // without either filter the columns are not a key: ties in user order, as the primary key has them
        const k = keyset(cols, page, filter.organizationId === undefined && filter.userId === undefined ? ['user_id'] : []);
        const where = [filter.organizationId !== undefined ? ' AND organization_id = ?' : '', filter.userId !== undefined ? ' AND user_id = ?' : ''].join('');
        const params = [...(filter.organizationId !== undefined ? [filter.organizationId] : []), ...(filter.userId !== undefined ? [filter.userId] : [])];
        return {
          cols,
          rows: await s.all<{ userId: string; organizationId: string; level: string; resourceId: string; accessRole: string; expiresAt: number | null }>(
            `SELECT user_id AS "userId", organization_id AS "organizationId", level, resource_id AS "resourceId", access_role AS "accessRole", expires_at AS "expiresAt"
           FROM memberships WHERE api_key_id = ?${where}${k.where}${k.order}`,
            scope.apiKeyId,
            ...params,
            ...k.params,
          ),
        };
      }),

    /** Everyone with a membership anywhere in the organization (up to `limit`) and `alsoUserId`, with their names (null for users not stored). */
    membersWithNames: (scope: TenantScope, organizationId: string, limit: number, alsoUserId: string | null) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const ids = new Set(
          (
            await s.all<{ userId: string }>(
              'SELECT DISTINCT user_id AS "userId" FROM memberships WHERE api_key_id = ? AND organization_id = ? ORDER BY user_id LIMIT ?',
              apiKeyId,
              organizationId,
              limit,
            )
          ).map((r) => r.userId),
        );
        if (alsoUserId) ids.add(alsoUserId);
        const stored = new Map(
          (
            await s.all<{ id: string; name: string | null }>(
              `SELECT id, name FROM users WHERE api_key_id = ? AND ${w.inList('id')}`,
              apiKeyId,
              w.list([...ids]),
            )
          ).map((u) => [u.id, u.name]),
        );
        // in the ids' order
        const names = new Map<string, string | null>();
        for (const id of ids) if (stored.has(id)) names.set(id, stored.get(id) ?? null);
        return { ids: [...ids], names };
      }),

    // ----- feed ------------------------------------------------------------------------------------------
    /**
     * Notifications of an organization (notifications_time), of a document (notifications_document) or to a user
     * (the recipients' index), by time in either direction.
     */
    notificationsPage: (scope: TenantScope, organizationId: string, filter: { documentId?: string; userId?: string }, page: PageArgs) =>
      read(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const select = `SELECT n.id, n.organization_id AS "organizationId", n.document_id AS "documentId", n."timestamp", n.headline_template AS "headlineTemplate",
        CAST(n.headline_data AS TEXT) AS "headlineData", n.body, CAST(n.action_user AS TEXT) AS "actionUser",
        (SELECT count(*) FROM notification_recipients r WHERE r.api_key_id = n.api_key_id AND r.organization_id = n.organization_id AND r.notification_id = n.id) AS recipients`;
        if (filter.userId !== undefined) {
          const k = keyset(['r."timestamp"', 'r.notification_id'], page);
          const doc = filter.documentId !== undefined ? ' AND r.document_id = ?' : '';
          return {
            cols: ['timestamp', 'id'],
            rows: await s.all<NotificationRow>(
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
        const k = keyset(['n."timestamp"', 'n.id'], page);
        const doc = filter.documentId !== undefined ? ' AND n.document_id = ?' : '';
        return {
          cols: ['timestamp', 'id'],
          rows: await s.all<NotificationRow>(
            `${select} FROM notifications n WHERE n.api_key_id = ? AND n.organization_id = ?${doc}${k.where}${k.order}`,
            apiKeyId,
            organizationId,
            ...(filter.documentId !== undefined ? [filter.documentId] : []),
            ...k.params,
          ),
        };
      }),

    activityPage: (
      scope: TenantScope,
      organizationId: string,
      filter: { documentId?: string; userId?: string; featureType?: string; actionType?: string },
      page: PageArgs,
    ) =>
      read((s) => {
        const k = keyset(['"timestamp"', 'id'], page);
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
        return s.all<ActivityRow>(
          `SELECT id, organization_id AS "organizationId", document_id AS "documentId", "timestamp", feature_type AS "featureType", action_type AS "actionType",
         action_user_id AS "actionUserId", display_message_template AS template, CAST(display_message_template_data AS TEXT) AS "templateData"
         FROM activities WHERE api_key_id = ? AND organization_id = ?${parts.join('')}${k.where}${k.order}`,
          scope.apiKeyId,
          organizationId,
          ...params,
          ...k.params,
        );
      }),

    // ----- search ----------------------------------------------------------------------------------------
    /** The command palette: the workspace's keys, and of each kind a few by id prefix or name part, within those keys. */
    search: (workspace: WorkspaceScope, q: string, each: number) =>
      view(async (s) => {
        const keys = await keysOf(s, workspace);
        const hits: SearchHitRow[] = [];
        const f = searchFilter(q, 'id', 'name', w.like);
        const u = searchFilter(q, 'id', "coalesce(name, '') || ' ' || coalesce(email, '')", w.like);
        const e = searchFilter(q, 'id', "url || ' ' || coalesce(description, '')", w.like);
        for (const { id: apiKeyId } of keys) {
          for (const r of await s.all<{ id: string; name: string }>(
            `SELECT id, name FROM organizations WHERE api_key_id = ?${f.where} ORDER BY ${w.name.expr}, id LIMIT ?`,
            apiKeyId,
            ...f.params,
            each,
          ))
            hits.push({ kind: 'organization', apiKey: apiKeyId, organizationId: null, ...r });
          for (const r of await s.all<{ id: string; name: string; organizationId: string }>(
            `SELECT id, name, organization_id AS "organizationId" FROM documents WHERE api_key_id = ?${f.where} ORDER BY organization_id, ${w.name.expr}, id LIMIT ?`,
            apiKeyId,
            ...f.params,
            each,
          ))
            hits.push({ kind: 'document', apiKey: apiKeyId, organizationId: r.organizationId, id: r.id, name: r.name });
          for (const r of await s.all<{ id: string; name: string; organizationId: string }>(
            `SELECT id, name, organization_id AS "organizationId" FROM folders WHERE api_key_id = ?${f.where} ORDER BY organization_id, path LIMIT ?`,
            apiKeyId,
            ...f.params,
            each,
          ))
            hits.push({ kind: 'folder', apiKey: apiKeyId, organizationId: r.organizationId, id: r.id, name: r.name });
          for (const r of await s.all<{ id: string; name: string | null }>(
            `SELECT id, name FROM users WHERE api_key_id = ?${u.where} ORDER BY ${w.userName.expr}, id LIMIT ?`,
            apiKeyId,
            ...u.params,
            each,
          ))
            hits.push({ kind: 'user', apiKey: apiKeyId, organizationId: null, ...r });
          for (const r of await s.all<{ id: string; name: string }>(
            `SELECT id, url AS name FROM webhook_endpoints WHERE api_key_id = ?${e.where} ORDER BY created_at, id LIMIT ?`,
            apiKeyId,
            ...e.params,
            each,
          ))
            hits.push({ kind: 'webhook', apiKey: apiKeyId, organizationId: null, ...r });
          for (const search of paletteSearches(apiKeyId, q, each, w.like))
            for (const r of await s.all<{ id: string; name: string | null; organizationId: string | null; documentId: string | null }>(
              search.sql,
              ...search.params,
            ))
              hits.push({ kind: search.kind, apiKey: apiKeyId, ...r, name: r.name === null ? null : String(r.name).slice(0, 80) });
        }
        return { keys, hits };
      }),

    // ----- mail ------------------------------------------------------------------------------------------
    /**
     * A workspace's mail by time: its own (login links) and each of its keys', every source a keyset range of its
     * index (mail_outbox_workspace, mail_outbox_key), merged. A mail of both the workspace and one of its keys is
     * listed once.
     */
    mailPage: (workspace: WorkspaceScope, page: PageArgs) =>
      view(async (s) => {
        const workspaceId = workspace.workspaceId;
        const k = keyset(['created_at', 'id'], page);
        const select =
          'SELECT id, kind, to_address AS "to", subject, status, last_error AS "lastError", created_at AS "createdAt", sent_at AS "sentAt" FROM mail_outbox';
        const keys = await s.all<{ id: string }>('SELECT id FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id', workspaceId);
        const byId = new Map<string, MailRow>();
        for (const row of await s.all<MailRow>(`${select} WHERE workspace_id = ?${k.where}${k.order}`, workspaceId, ...k.params)) byId.set(row.id, row);
        for (const key of keys)
          for (const row of await s.all<MailRow>(`${select} WHERE api_key_id = ?${k.where}${k.order}`, key.id, ...k.params)) byId.set(row.id, row);
        const sign = page.dir === 'asc' ? 1 : -1;
        return [...byId.values()].sort((a, b) => sign * (a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))).slice(0, page.limit + 1);
      }),

    mailOne: (workspace: WorkspaceScope, id: string) =>
      read((s) =>
        s.one<{ id: string; kind: string; to: string; subject: string; status: string; createdAt: number; bodyEnc: string }>(
          `SELECT id, kind, to_address AS "to", subject, status, created_at AS "createdAt", body_enc AS "bodyEnc" FROM mail_outbox
         WHERE id = ? AND (workspace_id = ? OR api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?))`,
          id,
          workspace.workspaceId,
          workspace.workspaceId,
        ),
      ),

    // ----- webhooks --------------------------------------------------------------------------------------
    /** Webhook events written but not yet turned into deliveries (the outbox): the server's gauge, every key's. */
    outboxDepth: () => read((s) => s.count('SELECT count(*) AS n FROM webhook_events WHERE dispatched_at IS NULL')),

    /** An endpoint of the key (for the test event), with its filter types (none: it takes every type). */
    endpoint: (scope: TenantScope, endpointId: string) =>
      read(async (s) => {
        const row = await s.one<{ id: string; url: string; disabled: number; filterTypes: string | null }>(
          'SELECT id, url, CAST(disabled AS INTEGER) AS disabled, CAST(filter_types AS TEXT) AS "filterTypes" FROM webhook_endpoints WHERE api_key_id = ? AND id = ?',
          scope.apiKeyId,
          endpointId,
        );
        if (!row) return undefined;
        let types: string[] = [];
        try {
          const parsed: unknown = row.filterTypes ? JSON.parse(row.filterTypes) : null;
          types = Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
        } catch {
          types = [];
        }
        return { id: row.id, url: row.url, disabled: row.disabled, filterTypes: types };
      }),

    /** The endpoint's signing secret, encrypted as stored; null when there is no such endpoint. */
    endpointSecret: (scope: TenantScope, endpointId: string) =>
      read(
        async (s) =>
          (await s.one<{ s: string }>('SELECT secret_enc AS s FROM webhook_endpoints WHERE api_key_id = ? AND id = ?', scope.apiKeyId, endpointId))?.s ?? null,
      ),
  };
}

export type InspectionRepo = ReturnType<typeof inspectionRepo>;
