// The data browser's endpoints: paged lists (keyset cursors) of organizations, documents, users, memberships,
// notifications and activity; one organization, document or user with its counts and activity per day; and the
// command palette's search. Every read is the inspection repository's (db/repos/inspection.ts), one step per view.
import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import {
  documentsQuery,
  feedQuery,
  membershipsQuery,
  organizationsQuery,
  searchQuery,
  usersQuery,
  type SearchHit,
  type UserAccessAnswer,
  type UserPresenceAnswer,
} from '../../shared/admin.ts';
import type { ActivityRow, EntitySort, NotificationRow, SortKey } from '../db/repos/inspection.ts';
import { createAccessResolver } from '../services/access.ts';
import { recentProviderDecisions } from '../services/permission-provider.ts';
import { fail, guard, keyGuard, pager, queryOf, type AdminKit } from './kit.ts';

/** `{name}` / `{{name}}` placeholders filled from the template data (users by name or id). */
export function fillTemplate(template: string | null, data: Record<string, unknown>): string {
  return (template ?? '').replace(/\{\{?(\w+)\}?\}/g, (_, key: string) => {
    const value = data[key];
    if (value && typeof value === 'object') {
      const user = value as { name?: unknown; userId?: unknown };
      return String(user.name ?? user.userId ?? '');
    }
    return value === undefined || value === null ? '' : String(value);
  });
}

const parseJson = (text: string | null): Record<string, unknown> => {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** The organizations a user's access page looks into (each one's first 2,000 documents). */
const USER_ACCESS_ORGANIZATIONS = 20;

const one = z.object({ apiKey: z.string().trim().min(1).max(256), organizationId: z.string().trim().min(1).max(256) });

/** The cursor of an organization or document row: the sort's value, then the id. */
const entityKey =
  (sort: EntitySort) =>
  (r: { id: string; name: string; updatedAt: number }): SortKey =>
    sort === 'name' ? [r.name, r.id] : sort === 'updated' ? [r.updatedAt, r.id] : [r.id];

export function registerBrowseRoutes(h3: H3, kit: AdminKit) {
  const q = kit.app.storage.inspection;
  const pages = pager(kit.app.pageTokens);

  h3.get('/admin/api/key', async (event) => {
    const input = queryOf(event, z.object({ apiKey: z.string().trim().min(1).max(256) }));
    if (!input.ok) return input.error;
    const g = await keyGuard(kit, event, input.value.apiKey);
    if (!g.ok) return g.error;
    // the permission provider's newest decisions on this instance (the key page shows them beside the mode)
    return { counts: await q.keyCounts(g.scope), providerDecisions: recentProviderDecisions(kit.app, g.scope.apiKeyId) };
  });

  h3.get('/admin/api/organizations', async (event) => {
    const input = queryOf(event, organizationsQuery);
    if (!input.ok) return input.error;
    const { apiKey, q: search, sort, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const scope = { list: 'organizations', apiKey, search, sort };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    return pages.page(await q.organizationsPage(g.scope, search || undefined, sort, args.page), args.page, scope, entityKey(sort), (r) => ({
      ...r,
      disabled: r.disabled === 1,
    }));
  });

  h3.get('/admin/api/organization', async (event) => {
    const input = queryOf(event, one);
    if (!input.ok) return input.error;
    const { apiKey, organizationId } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const view = await q.organizationView(g.scope, organizationId, 2001);
    if (!view) return fail(event, 404, `No organization ${organizationId} under this key.`);
    const { organization, folders } = view;
    return {
      organization: { ...organization, disabled: organization.disabled === 1 },
      folders: folders.slice(0, 2000).map((f) => ({ ...f, parentId: f.parentId || null })),
      foldersTruncated: folders.length > 2000,
      groups: view.groups,
      counts: view.counts,
      activity: view.activity,
    };
  });

  h3.get('/admin/api/documents', async (event) => {
    const input = queryOf(event, documentsQuery);
    if (!input.ok) return input.error;
    const { apiKey, organizationId, folderId, q: search, sort, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const scope = { list: 'documents', apiKey, organizationId, folderId, search, sort };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    return pages.page(
      await q.documentsPage(g.scope, organizationId, folderId, search || undefined, sort, args.page),
      args.page,
      scope,
      entityKey(sort),
      (r) => ({ ...r, disabled: r.disabled === 1 }),
    );
  });

  h3.get('/admin/api/document', async (event) => {
    const input = queryOf(event, one.extend({ documentId: z.string().trim().min(1).max(256) }));
    if (!input.ok) return input.error;
    const { apiKey, organizationId, documentId } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    // a document known only as a Yjs room (opened over websocket, never added) still has a page
    const view = await q.documentView(g.scope, organizationId, documentId);
    if (!view) return fail(event, 404, `No document ${documentId} in ${organizationId}.`);
    const { document } = view;
    return {
      document: document
        ? { ...document, disabled: document.disabled === 1 }
        : { id: documentId, name: null, organizationId, folderId: null, accessType: 'organizationPrivate', disabled: false, updatedAt: null },
      path: view.path,
      editors: view.editors.map((e) => ({
        ...e,
        connections: kit.app.crdt.connections({ apiKeyId: g.scope.apiKeyId, organizationId, documentId, editorId: e.editorId }),
      })),
      counts: view.counts,
      activity: view.activity,
    };
  });

  h3.get('/admin/api/users', async (event) => {
    const input = queryOf(event, usersQuery);
    if (!input.ok) return input.error;
    const { apiKey, q: search, sort, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const scope = { list: 'users', apiKey, search, sort };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    // the cursor holds the sort expression's value: a user without a name sorts as ''
    return pages.page(
      await q.usersPage(g.scope, search || undefined, sort, args.page),
      args.page,
      scope,
      (r) => (sort === 'name' ? [r.name ?? '', r.id] : [r.id]),
      (r) => r,
    );
  });

  /** The user a `?apiKey&userId` query names, under a key of the session's: or the error to answer with. */
  async function userOf(event: H3Event) {
    const input = queryOf(event, z.object({ apiKey: z.string().trim().min(1).max(256), userId: z.string().trim().min(1).max(256) }));
    if (!input.ok) return { error: input.error } as const;
    const { apiKey, userId } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return { error: g.error } as const;
    const view = await q.userView(g.scope, userId);
    if (!view) return { error: fail(event, 404, `No user ${userId} under this key.`) } as const;
    return { scope: g.scope, userId, view } as const;
  }

  h3.get('/admin/api/user', async (event) => {
    const found = await userOf(event);
    if ('error' in found) return found.error;
    const { userId, view } = found;
    return { user: view.user ?? { id: userId, name: null, email: null }, organizations: view.organizations, notifications: view.notifications };
  });

  // A user's whole picture: every document of their organizations they can open, with the role and the reasons the
  // access resolver gives (one batch per organization), and their groups.
  h3.get('/admin/api/user/access', async (event) => {
    const found = await userOf(event);
    if ('error' in found) return found.error;
    const { scope, userId, view } = found;
    const answer: UserAccessAnswer = { documents: [], groups: [], checked: 0, truncated: false };
    for (const organizationId of view.organizations.slice(0, USER_ACCESS_ORGANIZATIONS)) {
      const tree = await q.organizationTree(scope, organizationId);
      answer.truncated ||= tree.documents.length >= 2000;
      answer.checked += tree.documents.length;
      const decisions = await createAccessResolver(kit.app, scope, organizationId).batch((resolver) =>
        tree.documents.map((d) => ({ d, decision: resolver.document(userId, d.id) })),
      );
      for (const { d, decision } of decisions)
        if (decision.access)
          answer.documents.push({
            organizationId,
            documentId: d.id,
            name: d.name || null,
            accessRole: decision.accessRole,
            accessType: decision.accessType,
            reasons: decision.reasons,
          });
      for (const group of tree.groups) if (group.userIds.includes(userId)) answer.groups.push({ organizationId, id: group.id, name: group.name || null });
    }
    answer.truncated ||= view.organizations.length > USER_ACCESS_ORGANIZATIONS;
    return answer;
  });

  // Where the user is connected now: the documents of this key with a websocket opened with their token.
  h3.get('/admin/api/user/presence', async (event) => {
    const found = await userOf(event);
    if ('error' in found) return found.error;
    return { documents: kit.app.crdt.presenceOf(found.scope.apiKeyId, found.userId) } satisfies UserPresenceAnswer;
  });

  h3.get('/admin/api/memberships', async (event) => {
    const input = queryOf(event, membershipsQuery);
    if (!input.ok) return input.error;
    const { apiKey, organizationId, userId, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    if (organizationId === undefined && userId === undefined) return fail(event, 400, 'organizationId or userId is required.');
    const scope = { list: 'memberships', apiKey, organizationId, userId };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    const { cols, rows } = await q.membershipsPage(g.scope, { ...(organizationId ? { organizationId } : {}), ...(userId ? { userId } : {}) }, args.page);
    const keyOf = (r: (typeof rows)[number]) => (cols[0] === 'user_id' ? [r.userId, r.level, r.resourceId] : [r.organizationId, r.level, r.resourceId]);
    return pages.page(rows, args.page, scope, keyOf, (r) => r);
  });

  const describeNotification = (n: NotificationRow) => {
    const actionUser = parseJson(n.actionUser) as { userId?: string };
    return {
      id: n.id,
      organizationId: n.organizationId,
      documentId: n.documentId || null,
      timestamp: n.timestamp,
      headline: fillTemplate(n.headlineTemplate, { ...parseJson(n.headlineData), actionUser }),
      body: n.body,
      actionUserId: typeof actionUser.userId === 'string' ? actionUser.userId : null,
      recipients: n.recipients,
    };
  };
  h3.get('/admin/api/notifications', async (event) => {
    const input = queryOf(event, feedQuery);
    if (!input.ok) return input.error;
    const { apiKey, organizationId, documentId, userId, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    // `order`: every list of notifications is by time (an organization's was by id before: its cursors are refused)
    const scope = { list: 'notifications', order: 'time', apiKey, organizationId, documentId, userId };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    const { cols, rows } = await q.notificationsPage(
      g.scope,
      organizationId,
      { ...(documentId ? { documentId } : {}), ...(userId ? { userId } : {}) },
      args.page,
    );
    return pages.page(rows, args.page, scope, (r) => (cols.length === 2 ? [r.timestamp, r.id] : [r.id]), describeNotification);
  });

  const describeActivity = (a: ActivityRow) => ({
    id: a.id,
    organizationId: a.organizationId,
    documentId: a.documentId,
    timestamp: a.timestamp,
    featureType: a.featureType,
    actionType: a.actionType,
    actionUserId: a.actionUserId || null,
    message: fillTemplate(a.template, parseJson(a.templateData)),
  });
  h3.get('/admin/api/activity', async (event) => {
    const input = queryOf(event, feedQuery);
    if (!input.ok) return input.error;
    const { apiKey, organizationId, documentId, userId, featureType, actionType, cursor, dir, limit } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const filter = {
      ...(documentId ? { documentId } : {}),
      ...(userId ? { userId } : {}),
      ...(featureType ? { featureType } : {}),
      ...(actionType ? { actionType } : {}),
    };
    const scope = { list: 'activity', apiKey, organizationId, ...filter };
    const args = pages.args(event, scope, { cursor, dir, limit });
    if (!args.ok) return args.error;
    return pages.page(await q.activityPage(g.scope, organizationId, filter, args.page), args.page, scope, (r) => [r.timestamp, r.id], describeActivity);
  });

  h3.get('/admin/api/search', async (event) => {
    const input = queryOf(event, searchQuery);
    if (!input.ok) return input.error;
    const g = guard(kit, event);
    if (!g.ok) return g.error;
    const text = input.value.q;
    const each = Math.max(3, Math.ceil(input.value.limit / 4));
    const { keys, hits: found } = await q.search(g.workspace, text, each);
    const enc = encodeURIComponent;
    const hits: SearchHit[] = [];
    for (const k of keys) {
      if (k.id.startsWith(text) || (k.name ?? '').toLowerCase().includes(text.toLowerCase()))
        hits.push({ kind: 'key', id: k.id, label: `${k.name || k.id} (${k.type} key)`, apiKey: k.id, organizationId: null, href: `/k/${enc(k.id)}` });
    }
    for (const h of found) {
      const base = `/k/${enc(h.apiKey)}`;
      const label = h.name && h.name !== h.id ? `${h.name} (${h.id})` : h.id;
      const org = `${base}/organizations/${enc(h.organizationId ?? '')}`;
      const doc = h.documentId ? `${org}/documents/${enc(h.documentId)}` : null;
      const href =
        h.kind === 'organization'
          ? `${base}/organizations/${enc(h.id)}`
          : h.kind === 'document'
            ? `${org}/documents/${enc(h.id)}`
            : h.kind === 'folder'
              ? `${org}?folder=${enc(h.id)}`
              : h.kind === 'user'
                ? `${base}/users/${enc(h.id)}`
                : h.kind === 'group'
                  ? `${org}?tab=members`
                  : h.kind === 'notification'
                    ? `${doc ?? org}?tab=notifications`
                    : h.kind === 'comment'
                      ? `${doc ?? org}?tab=comments`
                      : h.kind === 'message'
                        ? `/deliveries?message=${enc(h.id)}`
                        : `${base}/webhooks/${enc(h.id)}`;
      hits.push({ kind: h.kind, id: h.id, label, apiKey: h.apiKey, organizationId: h.organizationId, href });
    }
    // exact ids first, then id prefixes, then the rest
    const rank = (hit: SearchHit) => (hit.id === text ? 0 : hit.id.startsWith(text) ? 1 : 2);
    return { items: hits.sort((a, b) => rank(a) - rank(b)).slice(0, input.value.limit) };
  });
}
