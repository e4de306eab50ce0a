// What the admin UI's views (repos/inspection.ts, one code for both engines) build from their arguments: keyset pages,
// searches, the filter of the collaborative documents' list, days of activity. Pure: text and parameters with `?`
// placeholders (PostgreSQL's statements number them), no connection.
import { tenantScope, type WorkspaceScope } from '../scope.ts';

export type Dir = 'asc' | 'desc';
export type SortKey = ReadonlyArray<string | number>;
export interface PageArgs {
  /** The sort key of the last row of the previous page (null: the first page). */
  after: SortKey | null;
  dir: Dir;
  limit: number;
}

export const DAY = 24 * 60 * 60 * 1000;

/** A statement's extra condition, its parameters, and for a page its order and limit. */
export interface Clause {
  where: string;
  params: unknown[];
}

/**
 * The keyset condition and order for sort columns `cols`: `(a, b) > (?, ?)` ascending, `<` descending (both engines
 * compare row values and use the index for them); `tieBreak` columns only order rows the sort leaves equal.
 */
export function keyset(cols: string[], page: PageArgs, tieBreak: string[] = []): Clause & { order: string } {
  const op = page.dir === 'asc' ? '>' : '<';
  const tuple = cols.length === 1 ? (cols[0] as string) : `(${cols.join(', ')})`;
  const marks = cols.length === 1 ? '?' : `(${cols.map(() => '?').join(', ')})`;
  return {
    where: page.after ? ` AND ${tuple} ${op} ${marks}` : '',
    params: page.after ? [...page.after] : [],
    order: ` ORDER BY ${[...cols, ...tieBreak].map((c) => `${c} ${page.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ')} LIMIT ${page.limit + 1}`,
  };
}

/**
 * A sort expression (a column or an indexed expression), and the same applied to the cursor's value: `?` where the
 * expression's collation applies to both sides (SQLite's COLLATE NOCASE), `lower(?)` for PostgreSQL's `lower(name)`.
 */
export interface Sort {
  expr: string;
  param: string;
}

/**
 * The keyset condition and order for a sort on `sort` then `idCol`. Written as `expr >= ? AND (expr > ? OR id > ?)`
 * rather than as a row value: SQLite seeks an index on the first term even when the expression carries a collation
 * (a row value with COLLATE NOCASE is searched from the start of the key's range instead, which reads every earlier
 * page).
 */
export function sortedKeyset(sort: Sort, idCol: string, page: PageArgs): Clause & { order: string } {
  const [op, d] = page.dir === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
  return {
    where: page.after ? ` AND ${sort.expr} ${op}= ${sort.param} AND (${sort.expr} ${op} ${sort.param} OR ${idCol} ${op} ?)` : '',
    params: page.after ? [page.after[0], page.after[0], page.after[1]] : [],
    order: ` ORDER BY ${sort.expr} ${d}, ${idCol} ${d} LIMIT ${page.limit + 1}`,
  };
}

/** The keyset of a list sorted by its id or by one of `sorts` (each indexed with the id after it). */
export function sortedBy(sort: string, idCol: string, sorts: Record<string, Sort>, page: PageArgs) {
  const by = sorts[sort];
  return by === undefined ? keyset([idCol], page) : sortedKeyset(by, idCol, page);
}

/**
 * A search: an id prefix (an index range) or a part of the name (a scan that stops at the page's end), ignoring the
 * case of ASCII letters: SQLite's `LIKE` does, PostgreSQL's `ILIKE` (under the C character type the engine requires).
 */
export function searchFilter(q: string | undefined, idCol: string, nameCol: string, like: 'LIKE' | 'ILIKE'): Clause {
  return q
    ? {
        where: ` AND ((${idCol} >= ? AND ${idCol} < ?) OR ${nameCol} ${like} ? ESCAPE '\\')`,
        params: [q, `${q}\uffff`, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
      }
    : { where: '', params: [] };
}

/**
 * The collaborative documents' list of a key: in one organization or all; a search is `org/doc[/editor]` (the
 * organization's id, then prefixes of the document's and editor's ids), or one word: a prefix of the document's,
 * organization's or editor's id, or a part of the document's name (its `documents` row, ignoring case).
 */
export function crdtFilter(organizationId: string | undefined, q: string | undefined, like: 'LIKE' | 'ILIKE' = 'LIKE'): Clause {
  const org = organizationId === undefined ? { where: '', params: [] } : { where: ' AND organization_id = ?', params: [organizationId] };
  if (!q) return org;
  const prefix = (column: string, value: string) => ({ where: `(${column} >= ? AND ${column} < ?)`, params: [value, `${value}\uffff`] });
  if (q.includes('/')) {
    const [o = '', d = '', e = ''] = q.split('/').map((part) => part.trim());
    const parts = [{ where: 'organization_id = ?', params: [o] as string[] }];
    if (d) parts.push(prefix('document_id', d));
    if (e) parts.push(prefix('editor_id', e));
    return { where: `${org.where} AND ${parts.map((p) => p.where).join(' AND ')}`, params: [...org.params, ...parts.flatMap((p) => p.params)] };
  }
  const name = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const any = [prefix('document_id', q), prefix('organization_id', q), prefix('editor_id', q)];
  return {
    where: `${org.where} AND (${any.map((p) => p.where).join(' OR ')} OR EXISTS (SELECT 1 FROM documents d WHERE d.api_key_id = crdt_documents.api_key_id AND d.organization_id = crdt_documents.organization_id AND d.id = crdt_documents.document_id AND lower(d.name) ${like} lower(?) ESCAPE '\\'))`,
    params: [...org.params, ...any.flatMap((p) => p.params), name],
  };
}

/** Since when `days` days of activity count. */
export const daysSince = (days: number, now = Date.now()) => now - days * DAY;

/** Activity per day over the last `days` days, oldest first, empty days included: from counts by day number. */
export function lastDays(rows: ReadonlyArray<{ day: number; n: number }>, days: number, now = Date.now()) {
  const byDay = new Map(rows.map((r) => [Math.floor(Number(r.day)), Number(r.n)]));
  const today = Math.floor(now / DAY);
  return Array.from({ length: days }, (_, i) => {
    const day = today - days + 1 + i;
    return { day: new Date(day * DAY).toISOString().slice(0, 10), count: byDay.get(day) ?? 0 };
  });
}

/** The admin's scope of one of the workspace's keys (the session acts on that key's data). */
export const adminScope = (apiKeyId: string, workspace: WorkspaceScope) => tenantScope(apiKeyId, workspace.workspaceId, { kind: 'admin' });

/**
 * The palette's further kinds (issue 44, point 7), the same SQL on both engines: user groups (by id prefix or name
 * part), notifications and comment threads (by id prefix, one index range per organization of the key: their
 * primary keys start with the organization), and webhook messages (`msg_…`, by id prefix). Each answers at most
 * `each` rows as { id, name, organizationId, documentId }.
 */
export function paletteSearches(apiKeyId: string, q: string, each: number, like: 'LIKE' | 'ILIKE') {
  const upper = `${q}\uffff`;
  const orgs = 'organization_id IN (SELECT id FROM organizations WHERE api_key_id = ?)';
  const name = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return [
    {
      kind: 'group' as const,
      sql: `SELECT id, name, organization_id AS "organizationId", NULL AS "documentId" FROM user_groups WHERE api_key_id = ? AND ((id >= ? AND id < ?) OR name ${like} ? ESCAPE '\\') ORDER BY organization_id, id LIMIT ?`,
      params: [apiKeyId, q, upper, name, each],
    },
    {
      kind: 'notification' as const,
      sql: `SELECT id, body AS name, organization_id AS "organizationId", document_id AS "documentId" FROM notifications WHERE api_key_id = ? AND ${orgs} AND id >= ? AND id < ? ORDER BY organization_id, id LIMIT ?`,
      params: [apiKeyId, apiKeyId, q, upper, each],
    },
    {
      kind: 'comment' as const,
      sql: `SELECT id, NULL AS name, organization_id AS "organizationId", document_id AS "documentId" FROM comment_annotations WHERE api_key_id = ? AND ${orgs} AND id >= ? AND id < ? ORDER BY organization_id, id LIMIT ?`,
      params: [apiKeyId, apiKeyId, q, upper, each],
    },
    {
      kind: 'message' as const,
      sql: `SELECT id, type AS name, organization_id AS "organizationId", document_id AS "documentId" FROM webhook_events WHERE api_key_id = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?`,
      params: [apiKeyId, q, upper, each],
    },
  ];
}
