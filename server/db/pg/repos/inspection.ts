// The admin UI's views on PostgreSQL: the same repository as ../../repos/inspection.ts (its type is the contract;
// test/pg/inspection.test.ts runs both on the same calls and data and compares every answer). The statements are
// SQLite's, in PostgreSQL's words, and the rows come back as SQLite gives them: booleans as 0/1, JSON columns as
// their text (`json` keeps it as written), integers as numbers, aliases quoted (PostgreSQL folds unquoted names).
//
// What differs, and why:
// - SQLite's `COLLATE NOCASE` sorts are `lower(…)` here, the expressions of the PostgreSQL indexes (pg/schema.ts:
//   organizations_name, documents_name, documents_folder_name, users_name); the cursor's value is lowered the same
//   way. In a database whose character type is C (the engine refuses language collations) `lower` folds ASCII only,
//   as NOCASE does.
// - SQLite's `LIKE` ignores the case of ASCII letters; PostgreSQL's does not: searches use `ILIKE` (ASCII folding
//   only under the C character type, as SQLite's LIKE).
// - A view of several statements reads them as one instant: SQLite's step is synchronous on one connection; here it
//   is a REPEATABLE READ unit of work of its own (or the caller's unit of work, when there is one).
// - Per-row lookups SQLite makes one by one (a member's name, a user's notifications per organization, a folder's
//   ancestors) are one statement each here, with the ids as one array parameter; the answers are the same.
// - `deliveryInspection` (the reads of webhooks.db) is not here: that file stays SQLite's until the delivery store is
//   ported (its own repository).
import type {
  ActivityRow,
  CrdtListRow,
  DocumentRow,
  InspectionRepo,
  KeyListRow,
  MailRow,
  NotificationRow,
  OrganizationListRow,
  SearchHitRow,
} from '../../repos/inspection.ts';
import {
  adminScope,
  crdtFilter,
  daysSince,
  keyset,
  lastDays,
  type PageArgs,
  searchFilter,
  type Sort,
  sortedBy,
  paletteSearches,
} from '../../repos/inspection-sql.ts';
import type { TenantScope, WorkspaceScope } from '../../scope.ts';
import type { PgDb, PgEngine } from '../engine.ts';

type Row = Record<string, unknown>;

/** SQLite's `?` placeholders as PostgreSQL's `$1, $2, …` (none of the statements here holds a `?` of its own). */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function statementsOf(db: PgDb) {
  const all = async <T = Row>(text: string, ...params: unknown[]) => (await db.$client.query({ text: numbered(text), values: params })).rows as T[];
  const one = async <T = Row>(text: string, ...params: unknown[]) => (await all<T>(text, ...params))[0];
  const count = async (text: string, ...params: unknown[]) => (await one<{ n: number }>(text, ...params))?.n ?? 0;
  return { all, one, count };
}
type Statements = ReturnType<typeof statementsOf>;

/** SQLite's ENTITY_SORTS and USER_SORTS, by the PostgreSQL indexes' expressions. */
const ENTITY_SORTS: Record<string, Sort> = { name: { expr: 'lower(name)', param: 'lower(?)' }, updated: { expr: 'updated_at', param: '?' } };
const USER_NAME = "lower(coalesce(name, ''))";
const USER_SORTS: Record<string, Sort> = { name: { expr: USER_NAME, param: 'lower(?)' } };

const CRDT_COLUMNS = `SELECT api_key_id AS "apiKey", organization_id AS "organizationId", document_id AS "documentId", editor_id AS "editorId", type, content_key AS "contentKey",
  update_count AS "updateCount", coalesce(octet_length(snapshot), 0) AS "snapshotBytes", updated_at AS "updatedAt", last_updated_by AS "lastUpdatedBy", compacted_at AS "compactedAt" FROM crdt_documents`;

const ORGANIZATION_COLUMNS = 'SELECT id, name, disabled::int AS disabled, created_at AS "createdAt", updated_at AS "updatedAt" FROM organizations';
const DOCUMENT_COLUMNS =
  'SELECT id, name, organization_id AS "organizationId", folder_id AS "folderId", access_type AS "accessType", disabled::int AS disabled, updated_at AS "updatedAt" FROM documents';
const KEY_COLUMNS = 'SELECT id, name, type, disabled::int AS disabled, disabled_at AS "disabledAt" FROM api_keys';

const keysOf = (s: Statements, workspace: WorkspaceScope) =>
  s.all<KeyListRow>(`${KEY_COLUMNS} WHERE workspace_id = ? ORDER BY created_at, id`, workspace.workspaceId);

/** As SQLite's activityByDay: activity per day over the last `days` days (oldest first, empty days included). */
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

function crdtPageOf(s: Statements, scope: TenantScope, organizationId: string | undefined, q: string | undefined, page: PageArgs) {
  const k = keyset(['organization_id', 'document_id', 'editor_id'], page);
  const f = crdtFilter(organizationId, q);
  return s.all<CrdtListRow>(`${CRDT_COLUMNS} WHERE api_key_id = ?${f.where}${k.where}${k.order}`, scope.apiKeyId, ...f.params, ...k.params);
}

/** The folder and its ancestors, root first (ancestors that are not folders, the organization's root, left out). */
async function folderPath(s: Statements, scope: TenantScope, organizationId: string, folderId: string) {
  const apiKeyId = scope.apiKeyId;
  const folder = await s.one<{ id: string; name: string; ancestors: string }>(
    'SELECT id, name, ancestors::text AS ancestors FROM folders WHERE api_key_id = ? AND organization_id = ? AND id = ?',
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
        'SELECT id, name FROM folders WHERE api_key_id = ? AND organization_id = ? AND id = ANY(?::text[])',
        apiKeyId,
        organizationId,
        ancestors,
      )
    ).map((f) => [f.id, f]),
  );
  // in the ancestors' order, each as often as listed (as SQLite's lookups one by one)
  const named = ancestors.flatMap((id) => found.get(id) ?? []);
  return [...named, { id: folder.id, name: folder.name }];
}

export function inspectionRepoPg(engine: PgEngine): InspectionRepo {
  /** One statement's read. */
  const read = <T>(run: (s: Statements) => Promise<T>) => engine.read((db) => run(statementsOf(db)));
  /** A view's statements as one instant: the caller's unit of work, or a REPEATABLE READ one of its own. */
  const view = <T>(run: (s: Statements) => Promise<T>) =>
    engine.inTransaction() ? read(run) : engine.transaction(() => read(run), { isolation: 'repeatable read' });

  return {
    // ----- workspace and keys ---------------------------------------------------------------------------
    keyScope: (workspace, apiKeyId) =>
      read(async (s) =>
        (await s.one('SELECT 1 AS found FROM api_keys WHERE id = ? AND workspace_id = ?', apiKeyId, workspace.workspaceId))
          ? adminScope(apiKeyId, workspace)
          : undefined,
      ),

    keys: (workspace) => read((s) => keysOf(s, workspace)),

    key: (scope) => read((s) => s.one<KeyListRow>(`${KEY_COLUMNS} WHERE id = ? AND workspace_id = ?`, scope.apiKeyId, scope.workspaceId)),

    workspaceCounts: (workspace) =>
      read(async (s) => {
        const tables = ['organizations', 'documents', 'users', 'notifications', 'crdt_documents', 'webhook_endpoints', 'agents', 'workflow_definitions'];
        const row =
          (await s.one<Record<string, number>>(
            `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t} WHERE api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = $1)) AS "${t}"`).join(', ')}`,
            workspace.workspaceId,
          )) ?? {};
        return Object.fromEntries(tables.map((t) => [t, row[t] ?? 0])) as Record<string, number>;
      }),

    keyCounts: (scope) =>
      read(async (s) => {
        const tables = ['organizations', 'documents', 'users', 'notifications', 'activities', 'crdt_documents', 'webhook_endpoints', 'agents'];
        const row =
          (await s.one<Record<string, number>>(
            `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t} WHERE api_key_id = $1) AS "${t}"`).join(', ')}`,
            scope.apiKeyId,
          )) ?? {};
        return Object.fromEntries(tables.map((t) => [t, row[t] ?? 0])) as Record<string, number>;
      }),

    // ----- organizations ---------------------------------------------------------------------------------
    organizationsPage: (scope, q, sort, page) =>
      read((s) => {
        const f = searchFilter(q, 'id', 'name', 'ILIKE');
        const k = sortedBy(sort, 'id', ENTITY_SORTS, page);
        return s.all<OrganizationListRow>(
          `${ORGANIZATION_COLUMNS} WHERE api_key_id = ?${f.where}${k.where}${k.order}`,
          scope.apiKeyId,
          ...f.params,
          ...k.params,
        );
      }),

    organizationView: (scope, organizationId, folderLimit) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const organization = await s.one<OrganizationListRow>(`${ORGANIZATION_COLUMNS} WHERE api_key_id = ? AND id = ?`, apiKeyId, organizationId);
        if (!organization) return undefined;
        const folders = await s.all<{ id: string; name: string; parentId: string; accessType: string }>(
          'SELECT id, name, parent_id AS "parentId", access_type AS "accessType" FROM folders WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT ?',
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
          `SELECT (SELECT count(*) FROM documents WHERE api_key_id = $1 AND organization_id = $2) AS documents,
             (SELECT count(DISTINCT user_id) FROM memberships WHERE api_key_id = $1 AND organization_id = $2) AS members,
             (SELECT count(*) FROM notifications WHERE api_key_id = $1 AND organization_id = $2) AS notifications,
             (SELECT count(*) FROM activities WHERE api_key_id = $1 AND organization_id = $2) AS activities`,
          apiKeyId,
          organizationId,
        )) as { documents: number; members: number; notifications: number; activities: number };
        return {
          organization,
          folders,
          groups,
          counts: { documents: counts.documents, members: counts.members, notifications: counts.notifications, activities: counts.activities },
          activity: await activityByDay(s, scope, organizationId, null),
        };
      }),

    organizationTree: (scope, organizationId) =>
      view(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const groups = await s.all<{ id: string; name: string }>(
          'SELECT id, name FROM user_groups WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 1000',
          apiKeyId,
          organizationId,
        );
        const folders = await s.all<{ id: string; name: string; parentId: string; accessType: string }>(
          'SELECT id, name, parent_id AS "parentId", access_type AS "accessType" FROM folders WHERE api_key_id = ? AND organization_id = ? ORDER BY path LIMIT 2000',
          apiKeyId,
          organizationId,
        );
        const documents = (
          await s.all<{ id: string; name: string; folderId: string | null; accessType: string; disabled: number }>(
            'SELECT id, name, folder_id AS "folderId", access_type AS "accessType", disabled::int AS disabled FROM documents WHERE api_key_id = ? AND organization_id = ? ORDER BY id LIMIT 2000',
            apiKeyId,
            organizationId,
          )
        ).map((d) => ({ ...d, disabled: d.disabled === 1 }));
        // each group's first 1000 members by user id, in one statement
        const memberRows = await s.all<{ groupId: string; userId: string }>(
          `SELECT g.id AS "groupId", m.user_id AS "userId" FROM unnest(?::text[]) AS g(id)
           CROSS JOIN LATERAL (SELECT user_id FROM user_group_members WHERE api_key_id = ? AND organization_id = ? AND group_id = g.id ORDER BY user_id LIMIT 1000) m`,
          groups.map((g) => g.id),
          apiKeyId,
          organizationId,
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
        return {
          folders,
          documents,
          groups: groups.map((g) => ({ ...g, userIds: byGroup.get(g.id) ?? [] })),
          members,
        };
      }),

    // ----- documents -------------------------------------------------------------------------------------
    documentsPage: (scope, organizationId, folderId, q, sort, page) =>
      read((s) => {
        const f = searchFilter(q, 'id', 'name', 'ILIKE');
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

    documentView: (scope, organizationId, documentId) =>
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
          `SELECT (SELECT count(*) FROM notifications WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3) AS notifications,
             (SELECT count(*) FROM activities WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3) AS activities,
             (SELECT count(*) FROM comment_annotations WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3) AS comments,
             (SELECT count(*) FROM recordings WHERE api_key_id = $1 AND organization_id = $2 AND document_id = $3) AS recordings`,
          apiKeyId,
          organizationId,
          documentId,
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
    crdtPage: (scope, organizationId, q, page) => read((s) => crdtPageOf(s, scope, organizationId, q, page)),

    workspaceCrdt: (workspace, limit) =>
      view(async (s) => {
        const out: CrdtListRow[] = [];
        for (const k of await keysOf(s, workspace))
          out.push(...(await crdtPageOf(s, adminScope(k.id, workspace), undefined, undefined, { after: null, dir: 'asc', limit: limit - 1 })).slice(0, limit));
        return out;
      }),

    crdt: (scope, organizationId, documentId, editorId) =>
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
    usersPage: (scope, q, sort, page) =>
      read((s) => {
        // a part of the name or of the e-mail address (issue 44)
        const f = searchFilter(q, 'id', "coalesce(name, '') || ' ' || coalesce(email, '')", 'ILIKE');
        const k = sortedBy(sort, 'id', USER_SORTS, page);
        return s.all<{ id: string; name: string | null; email: string | null }>(
          `SELECT id, name, email FROM users WHERE api_key_id = ?${f.where}${k.where}${k.order}`,
          scope.apiKeyId,
          ...f.params,
          ...k.params,
        );
      }),

    userView: (scope, userId) =>
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
        // the notifications to the user in those organizations (SQLite counts them organization by organization)
        const notifications = await s.count(
          'SELECT count(*) AS n FROM notification_recipients WHERE api_key_id = ? AND organization_id = ANY(?::text[]) AND user_id = ?',
          apiKeyId,
          organizations,
          userId,
        );
        return { user, organizations, notifications };
      }),

    membershipsPage: (scope, filter, page) =>
      read(async (s) => {
        const cols = filter.organizationId !== undefined ? ['user_id', 'level', 'resource_id'] : ['organization_id', 'level', 'resource_id'];
        // without either filter the columns are not a key: SQLite's plan (the primary key) orders ties by user
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

    membersWithNames: (scope, organizationId, limit, alsoUserId) =>
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
          (await s.all<{ id: string; name: string | null }>('SELECT id, name FROM users WHERE api_key_id = ? AND id = ANY(?::text[])', apiKeyId, [...ids])).map(
            (u) => [u.id, u.name],
          ),
        );
        // in the ids' order, as SQLite's lookups one by one
        const names = new Map<string, string | null>();
        for (const id of ids) if (stored.has(id)) names.set(id, stored.get(id) ?? null);
        return { ids: [...ids], names };
      }),

    // ----- feed ------------------------------------------------------------------------------------------
    notificationsPage: (scope, organizationId, filter, page) =>
      read(async (s) => {
        const apiKeyId = scope.apiKeyId;
        const select = `SELECT n.id, n.organization_id AS "organizationId", n.document_id AS "documentId", n."timestamp", n.headline_template AS "headlineTemplate", n.headline_data::text AS "headlineData",
        n.body, n.action_user::text AS "actionUser",
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

    activityPage: (scope, organizationId, filter, page) =>
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
          `SELECT id, organization_id AS "organizationId", document_id AS "documentId", "timestamp", feature_type AS "featureType", action_type AS "actionType", action_user_id AS "actionUserId",
         display_message_template AS template, display_message_template_data::text AS "templateData" FROM activities WHERE api_key_id = ? AND organization_id = ?${parts.join('')}${k.where}${k.order}`,
          scope.apiKeyId,
          organizationId,
          ...params,
          ...k.params,
        );
      }),

    // ----- search ----------------------------------------------------------------------------------------
    search: (workspace, q, each) =>
      view(async (s) => {
        const keys = await keysOf(s, workspace);
        const hits: SearchHitRow[] = [];
        const f = searchFilter(q, 'id', 'name', 'ILIKE');
        const u = searchFilter(q, 'id', "coalesce(name, '') || ' ' || coalesce(email, '')", 'ILIKE');
        const w = searchFilter(q, 'id', "url || ' ' || coalesce(description, '')", 'ILIKE');
        for (const { id: apiKeyId } of keys) {
          for (const r of await s.all<{ id: string; name: string }>(
            `SELECT id, name FROM organizations WHERE api_key_id = ?${f.where} ORDER BY lower(name), id LIMIT ?`,
            apiKeyId,
            ...f.params,
            each,
          ))
            hits.push({ kind: 'organization', apiKey: apiKeyId, organizationId: null, ...r });
          for (const r of await s.all<{ id: string; name: string; organizationId: string }>(
            `SELECT id, name, organization_id AS "organizationId" FROM documents WHERE api_key_id = ?${f.where} ORDER BY organization_id, lower(name), id LIMIT ?`,
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
            `SELECT id, name FROM users WHERE api_key_id = ?${u.where} ORDER BY ${USER_NAME}, id LIMIT ?`,
            apiKeyId,
            ...u.params,
            each,
          ))
            hits.push({ kind: 'user', apiKey: apiKeyId, organizationId: null, ...r });
          for (const r of await s.all<{ id: string; name: string }>(
            `SELECT id, url AS name FROM webhook_endpoints WHERE api_key_id = ?${w.where} ORDER BY created_at, id LIMIT ?`,
            apiKeyId,
            ...w.params,
            each,
          ))
            hits.push({ kind: 'webhook', apiKey: apiKeyId, organizationId: null, ...r });
          for (const search of paletteSearches(apiKeyId, q, each, 'ILIKE'))
            for (const r of await s.all<{ id: string; name: string | null; organizationId: string | null; documentId: string | null }>(
              search.sql,
              ...search.params,
            ))
              hits.push({ kind: search.kind, apiKey: apiKeyId, ...r, name: r.name === null ? null : String(r.name).slice(0, 80) });
        }
        return { keys, hits };
      }),

    // ----- mail ------------------------------------------------------------------------------------------
    mailPage: (workspace, page) =>
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

    mailOne: (workspace, id) =>
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
    outboxDepth: () => read((s) => s.count('SELECT count(*) AS n FROM webhook_events WHERE dispatched_at IS NULL')),

    endpoint: (scope, endpointId) =>
      read(async (s) => {
        const row = await s.one<{ id: string; url: string; disabled: number; filterTypes: string | null }>(
          'SELECT id, url, disabled::int AS disabled, filter_types::text AS "filterTypes" FROM webhook_endpoints WHERE api_key_id = ? AND id = ?',
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

    endpointSecret: (scope, endpointId) =>
      read(
        async (s) =>
          (await s.one<{ s: string }>('SELECT secret_enc AS s FROM webhook_endpoints WHERE api_key_id = ? AND id = ?', scope.apiKeyId, endpointId))?.s ?? null,
      ),
  };
}
