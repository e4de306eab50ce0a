/**
 * `hearth export --as-fixtures`: a database's state as a fixtures file (server/testing/fixtures.ts), so that a
 * state made by hand or by an app can be loaded again into a fresh database with `hearth fixtures load`.
 *
 * Organizations, folders, documents, notifications, comments and collaborative content are read through the
 * read operations (as an app would read them); workspaces, keys and their auth tokens through the services; the
 * users at each level, groups and expiring permissions from their tables through the archive reader (no operation
 * lists an organization's members). What a fixtures file cannot carry is left out (docs/fixtures.md): activity,
 * recordings, reactions, webhooks, agents, workflows, read marks, context permissions and key settings other than
 * the ones the format names.
 */
import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import { type ArchiveSource, openArchiveSource, openPgArchiveSource, type StoredRow } from '../db/repos/archive.ts';
import { storedTables } from '../db/repos/archive.ts';
import { listAuthTokens } from '../services/apikeys.ts';
import {
  FIXTURES_VERSION,
  type fixtureContent,
  type fixtureDocument,
  type fixtureFolder,
  type fixtureOrganization,
  type FixturesInput,
  type KeyContext,
  run,
} from './fixtures.ts';

type Row = StoredRow;
type OrganizationOut = z.input<typeof fixtureOrganization>;
type FolderOut = z.input<typeof fixtureFolder>;
type DocumentOut = z.input<typeof fixtureDocument>;
type ContentOut = z.input<typeof fixtureContent>;

/** Every row of a table (all keys), as stored (SQL column names). */
async function tableRows(source: ArchiveSource, name: string, columns: string[]): Promise<Row[]> {
  const table = storedTables().find((t) => t.name === name);
  if (!table) throw new Error(`no table ${name}`);
  const out: Row[] = [];
  for await (const page of source.pages(table, columns, { kind: 'all' })) out.push(...page);
  return out;
}

/** The pages of a read operation, concatenated. */
async function allPages<T>(ctx: KeyContext, path: string, data: Record<string, unknown>): Promise<T[]> {
  const out: T[] = [];
  let pageToken: string | null | undefined;
  do {
    const answer = (await run(ctx, path, { ...data, ...(pageToken ? { pageToken } : {}) }, path)) as { data: T[]; pageToken?: string | null };
    out.push(...answer.data);
    pageToken = answer.pageToken;
  } while (pageToken);
  return out;
}

const clean = <T extends Record<string, unknown>>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;

/** The database's state as fixtures: every workspace, or only `workspaceId`. */
export async function exportFixtures(app: AppContext, options: { workspaceId?: string } = {}): Promise<FixturesInput> {
  const source = app.config.databaseUrl !== undefined ? await openPgArchiveSource(app.config.databaseUrl) : openArchiveSource(app.config.dataDir);
  try {
    await source.begin();
    const users = await tableRows(source, 'users', ['api_key_id', 'id', 'name', 'email', 'initial', 'photo_url']);
    const memberships = await tableRows(source, 'memberships', [
      'api_key_id',
      'organization_id',
      'level',
      'resource_id',
      'user_id',
      'access_role',
      'expires_at',
    ]);
    const groups = await tableRows(source, 'user_groups', ['api_key_id', 'organization_id', 'id', 'name']);
    const groupMembers = await tableRows(source, 'user_group_members', ['api_key_id', 'organization_id', 'group_id', 'user_id']);
    const workspaces = (await app.storage.workspaces.list()).filter((w) => options.workspaceId === undefined || w.id === options.workspaceId);
    if (options.workspaceId !== undefined && workspaces.length === 0) throw new Error(`No workspace ${options.workspaceId}`);
    const out: FixturesInput = { version: FIXTURES_VERSION, workspaces: [] };
    for (const w of workspaces) {
      const workspaceScope = app.storage.workspaces.scopeOf(w);
      const keys = [];
      for (const listed of await app.storage.keys.listInWorkspace(workspaceScope)) {
        const key = await app.storage.keys.findInWorkspace(workspaceScope, listed.id);
        if (!key) continue;
        const scope = app.storage.keys.scopeOf(key);
        const ctx: KeyContext = { app, requestId: 'fixtures-export', clientIp: '127.0.0.1', apiKey: key, scope };
        const mine = (rows: Row[]) => rows.filter((r) => r.api_key_id === key.id);
        const profile = new Map(mine(users).map((u) => [u.id as string, u]));
        const member = (m: Row) => {
          const u = profile.get(m.user_id as string);
          return clean({
            userId: m.user_id as string,
            name: (u?.name as string | null) ?? undefined,
            email: (u?.email as string | null) ?? undefined,
            initial: (u?.initial as string | null) ?? undefined,
            photoUrl: (u?.photo_url as string | null) ?? undefined,
            accessRole: m.access_role as 'viewer' | 'editor',
          });
        };
        const keyMemberships = mine(memberships);
        const at = (organizationId: string, level: string, resourceId: string) =>
          keyMemberships
            .filter((m) => m.organization_id === organizationId && m.level === level && m.resource_id === resourceId && m.expires_at === null)
            .map(member);
        const organizations: OrganizationOut[] = [];
        for (const o of await allPages<{ id: string; organizationName: string; disabled: boolean; metadata: Record<string, unknown> }>(
          ctx,
          '/v2/organizations/get',
          {},
        )) {
          organizations.push(await exportOrganization(ctx, o, at, mine(groups), mine(groupMembers)));
        }
        const permissions = keyMemberships
          .filter((m) => m.expires_at !== null)
          .map((m) => ({
            userId: m.user_id as string,
            resources: [
              {
                type: m.level as 'organization' | 'folder' | 'document',
                id: m.resource_id as string,
                organizationId: m.organization_id as string,
                accessRole: m.access_role as 'viewer' | 'editor',
                expiresAt: Math.ceil(Number(m.expires_at) / 1000),
              },
            ],
          }));
        const tokens = await listAuthTokens(app, scope);
        keys.push(
          clean({
            id: key.id,
            name: key.name,
            type: key.type,
            ownerEmail: key.ownerEmail,
            allowedDomains: key.allowedDomains.length > 0 ? key.allowedDomains : undefined,
            enablePrivateComments: key.settings.enablePrivateComments || undefined,
            authTokens: tokens.map((t) => clean({ token: t.token, name: t.name, domains: t.domains.length > 0 ? t.domains : undefined })),
            organizations: organizations.length > 0 ? organizations : undefined,
            permissions: permissions.length > 0 ? permissions : undefined,
          }),
        );
      }
      if (keys.length === 0) continue;
      out.workspaces.push(
        clean({
          id: w.id,
          authToken: app.secrets.decrypt(w.authTokenEnc),
          name: w.name,
          ownerEmail: w.ownerEmail,
          ownerName: w.ownerName || undefined,
          plan: w.plan,
          selfServeProduction: w.selfServeProduction,
          maxProductionKeys: w.maxProductionKeys,
          apiKeys: keys as NonNullable<FixturesInput['workspaces'][number]['apiKeys']>,
        }),
      );
    }
    return out;
  } finally {
    await source.close();
  }
}

interface FolderItem {
  folderId: string;
  folderName: string;
  parentFolderId: string;
  accessType: string;
  inheritAccessFromParent: boolean;
  subFolders?: FolderItem[];
}

async function exportOrganization(
  ctx: KeyContext,
  o: { id: string; organizationName: string; disabled: boolean; metadata: Record<string, unknown> },
  at: (organizationId: string, level: string, resourceId: string) => Array<Record<string, unknown>>,
  groups: Row[],
  groupMembers: Row[],
): Promise<OrganizationOut> {
  const organizationId = o.id;
  const folders: FolderOut[] = [];
  const tree = ((await run(ctx, '/v2/organizations/folders/get', { organizationId }, 'folders')) as { data: FolderItem[] }).data;
  const walk = (items: FolderItem[]) => {
    for (const f of items) {
      const users = at(organizationId, 'folder', f.folderId);
      folders.push(
        clean({
          id: f.folderId,
          name: f.folderName || undefined,
          parentFolderId: f.parentFolderId === 'root' ? undefined : f.parentFolderId,
          accessType: f.inheritAccessFromParent ? undefined : (f.accessType as FolderOut['accessType']),
          users: users.length > 0 ? (users as FolderOut['users']) : undefined,
        }),
      );
      walk(f.subFolders ?? []);
    }
  };
  walk(tree);
  const documents: DocumentOut[] = [];
  type DocumentItem = { id: string; documentName: string; disabled: boolean; accessType: string; folderId: string; metadata: Record<string, unknown> };
  for (const d of await allPages<DocumentItem>(ctx, '/v2/organizations/documents/get', { organizationId })) {
    const documentId = d.id;
    const content = (
      (await run(ctx, '/v2/crdt/get', { organizationId, documentId }, 'content')) as {
        data: Array<{ id: string; type: string; contentKey: string; data: unknown }>;
      }
    ).data.map((c) => clean({ editorId: c.id, type: c.type, data: c.data, contentKey: c.contentKey === 'content' ? undefined : c.contentKey }) as ContentOut);
    const comments = (await allPages<Record<string, unknown>>(ctx, '/v2/commentannotations/get', { organizationId, documentId })).map(exportAnnotation);
    const notifications = (await allPages<Record<string, unknown>>(ctx, '/v2/notifications/get', { organizationId, documentId, order: 'asc' })).map(
      exportNotification,
    );
    const users = at(organizationId, 'document', documentId);
    documents.push(
      clean({
        id: documentId,
        name: d.documentName || undefined,
        folderId: d.folderId === 'root' ? undefined : d.folderId,
        accessType: d.accessType as DocumentOut['accessType'],
        metadata: Object.keys(d.metadata).length > 0 ? d.metadata : undefined,
        disabled: d.disabled || undefined,
        users: users.length > 0 ? (users as DocumentOut['users']) : undefined,
        content: content.length > 0 ? content : undefined,
        comments: comments.length > 0 ? (comments as DocumentOut['comments']) : undefined,
        notifications: notifications.length > 0 ? (notifications as DocumentOut['notifications']) : undefined,
      }),
    );
  }
  const orgUsers = at(organizationId, 'organization', organizationId);
  const orgGroups = groups
    .filter((g) => g.organization_id === organizationId)
    .map((g) => {
      const userIds = groupMembers.filter((m) => m.organization_id === organizationId && m.group_id === g.id).map((m) => m.user_id as string);
      return clean({ id: g.id as string, name: (g.name as string) || undefined, userIds: userIds.length > 0 ? userIds : undefined });
    });
  return clean({
    id: organizationId,
    name: o.organizationName || undefined,
    metadata: Object.keys(o.metadata ?? {}).length > 0 ? o.metadata : undefined,
    disabled: o.disabled || undefined,
    users: orgUsers.length > 0 ? (orgUsers as OrganizationOut['users']) : undefined,
    groups: orgGroups.length > 0 ? orgGroups : undefined,
    folders: folders.length > 0 ? folders : undefined,
    documents: documents.length > 0 ? documents : undefined,
  });
}

/** A thread as /v2/commentannotations/add takes it back. */
function exportAnnotation(a: Record<string, unknown>) {
  const comments = (a.comments as Array<Record<string, unknown>>) ?? [];
  return clean({
    annotationId: a.annotationId,
    location: a.location,
    targetElement: a.targetElement,
    status: a.status,
    assignedTo: a.assignedTo,
    context: a.context,
    priority: a.priority,
    commentType: a.commentType,
    visibility: a.visibility,
    commentData: comments.map((c) =>
      clean({
        commentId: c.commentId,
        commentText: c.commentText,
        commentHtml: c.commentHtml,
        from: c.from,
        context: c.context,
        createdAt: c.createdAt,
        lastUpdated: c.lastUpdated,
        isDraft: c.isDraft || undefined,
        to: (c.to as unknown[] | undefined)?.length ? c.to : undefined,
        attachments: (c.attachments as unknown[] | undefined)?.length ? c.attachments : undefined,
        customList: (c.customList as unknown[] | undefined)?.length ? c.customList : undefined,
      }),
    ),
  });
}

/** A notification as /v2/notifications/add takes it back: to exactly its recipients. */
function exportNotification(n: Record<string, unknown>) {
  const recipients = Object.keys((n.notifyUsersByUserId as Record<string, unknown> | undefined) ?? {});
  const data = n.displayHeadlineMessageTemplateData as Record<string, unknown> | undefined;
  const source = n.notificationSourceData as Record<string, unknown> | undefined;
  return clean({
    notificationId: n.id,
    actionUser: n.actionUser,
    isNotificationResolverUsed: n.isNotificationResolverUsed || undefined,
    displayHeadlineMessageTemplate: n.displayHeadlineMessageTemplate,
    displayHeadlineMessageTemplateData: data && Object.keys(data).length > 0 ? data : undefined,
    displayBodyMessage: n.displayBodyMessage,
    notifyUsers: recipients.map((userId) => ({ userId })),
    notifyAll: false,
    notificationSource: n.notificationSource,
    notificationSourceData: source && Object.keys(source).length > 0 ? source : undefined,
    locationId: n.locationId,
    context: n.context,
  });
}
