/**
 * Fixtures: one declarative JSON file of workspaces, API keys (fixed ids and auth tokens), organizations, folders,
 * documents with access, users, groups, permissions, notifications, comments and collaborative (Yjs) content,
 * loaded into a database as if an app had made it all over the API (issue 47; README "Fixtures", docs/fixtures.md).
 *
 * The loader writes through the operations themselves: each part becomes the `data` of the operation that makes
 * it (`/v2/organizations/folders/add`, `/v2/users/add`, `/v2/crdt/add`, …), checked by that operation's own input
 * schema and run by its handler with the key's scope, so ids, derived fields, access and content are exactly what the
 * API would have made. Only workspaces and keys, whose ids and tokens the API always draws at random, are inserted
 * by the services' own row builders with the fixed values.
 *
 * Decisions (docs/fixtures.md): loading is all or nothing for the rows (one unit of work for the whole file);
 * collaborative content is written after that commit through /v2/crdt/add's service (the live document store
 * takes no part in an open unit of work), and its input is checked before anything is written. Loading is not
 * idempotent: a workspace or API key id that exists already is refused before anything is written (load into a fresh
 * database, or after a reset).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { checkData } from '../crdt/content.ts';
import { ApiError } from '../errors.ts';
import type { AnyOperation, ApiKeyRequestContext } from '../http/operation.ts';
import { insertApiKey, issueAuthToken } from '../services/apikeys.ts';
import type { Credentials } from '../services/bootstrap.ts';
import { NEW_WORKSPACE_SETTINGS, newWorkspaceRow } from '../services/workspaces.ts';
import { type Fixtures, type fixtureOrganization, fixturesSchema } from './fixtures-schema.ts';

export * from './fixtures-schema.ts';

/** A fixtures file that cannot be loaded: the message names the file and the field (`workspaces[0].apiKeys[1].id`). */
export class FixturesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FixturesError';
  }
}

/** `workspaces[0].apiKeys[1].id` from a zod issue's path. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || '(top level)';
}

/** Checks a parsed JSON value against the schema; every problem (up to 20) with its field, on one line. */
export function parseFixtures(value: unknown, source = 'fixtures'): Fixtures {
  const parsed = fixturesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 20).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  const more = parsed.error.issues.length > 20 ? `; … and ${parsed.error.issues.length - 20} more` : '';
  throw new FixturesError(`${source} is not a valid fixtures file: ${problems.join('; ')}${more}`);
}

/**
 * The JSON Schema editors check a fixtures file with (docs/fixtures.schema.json, written by
 * `npm run fixtures:schema`): the input side of `fixturesSchema` (defaults optional), by zod's own converter.
 */
export function fixturesJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(fixturesSchema, { io: 'input', target: 'draft-2020-12' }),
    title: 'Hearth fixtures',
  };
}

/** A fixtures file whose name ends so is YAML; any other is JSON. */
const YAML_FILE = /\.ya?ml$/i;

/** Reads and checks a fixtures file: JSON, or YAML when its name ends in .yaml or .yml. */
export function readFixturesFile(path: string): Fixtures {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new FixturesError(`Cannot read the fixtures file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let value: unknown;
  if (YAML_FILE.test(path)) {
    try {
      // YAML 1.2's core schema (no custom tags), aliases bounded (a file of nested aliases cannot blow up), one document
      value = parseYaml(text, { schema: 'core', maxAliasCount: 100, prettyErrors: true });
    } catch (error) {
      throw new FixturesError(`${path} is not YAML: ${(error as Error).message}`);
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new FixturesError(`${path} is not JSON (a fixtures file is JSON, or YAML named .yaml or .yml): ${(error as Error).message}`);
    }
  }
  return parseFixtures(value, path);
}

export interface FixturesSummary {
  workspaces: Array<{ id: string; authToken: string; apiKeys: Array<{ id: string; authTokens: string[] }> }>;
  /** The first workspace's first key and token: what `hearth exec` hands a command as HEARTH_* (undefined with no workspace). */
  credentials: Credentials | undefined;
  counts: Record<'organizations' | 'folders' | 'documents' | 'users' | 'groups' | 'permissions' | 'notifications' | 'comments' | 'contents', number>;
  durationMs: number;
}

/** The operations the loader writes through, by path: loaded on first use (the registry imports every operation). */
let registry: Map<string, AnyOperation> | undefined;
async function operation(path: string): Promise<AnyOperation> {
  registry ??= new Map((await import('../operations/index.ts')).operations.map((op) => [op.path, op]));
  const op = registry.get(path);
  if (!op) throw new Error(`no operation ${path}`);
  return op;
}

/** What one API key's writes run with: the request context an authenticated call of that key would have. */
export type KeyContext = ApiKeyRequestContext;

/**
 * Runs one operation as an authenticated call of the key would: its input schema, its handler. A refusal (an error,
 * or a per-item `success: false`) becomes a FixturesError naming the fixture field that caused it.
 */
export async function run(ctx: KeyContext, path: string, data: unknown, at: string): Promise<unknown> {
  const op = await operation(path);
  const input = op.input.safeParse(data);
  if (!input.success) {
    const issue = input.error.issues[0];
    throw new FixturesError(`${at}: ${path} refuses it: ${fieldPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`);
  }
  let answer: unknown;
  try {
    answer = await op.handler(input.data, ctx);
  } catch (error) {
    if (error instanceof ApiError) throw new FixturesError(`${at}: ${path} answered ${error.status}: ${error.message}`);
    throw error;
  }
  const items = (answer as { data?: unknown }).data;
  if (items && typeof items === 'object' && !Array.isArray(items)) {
    for (const [key, item] of Object.entries(items)) {
      if (item && typeof item === 'object' && (item as { success?: unknown }).success === false) {
        throw new FixturesError(`${at}: ${path} refused ${key}: ${String((item as { message?: unknown }).message ?? 'failed')}`);
      }
    }
  }
  return answer;
}

/** Refusals that need no database: duplicate ids in the file, references to folders, content that does not fit its type. */
function checkFile(fixtures: Fixtures) {
  const seen = new Map<string, string>();
  const once = (kind: string, value: string, at: string) => {
    const key = `${kind}\u0000${value}`;
    const first = seen.get(key);
    if (first) throw new FixturesError(`${at}: ${kind} ${value} is already given at ${first}`);
    seen.set(key, at);
  };
  fixtures.workspaces.forEach((w, wi) => {
    once('workspace', w.id, `workspaces[${wi}].id`);
    w.apiKeys.forEach((k, ki) => {
      const keyAt = `workspaces[${wi}].apiKeys[${ki}]`;
      once('API key', k.id, `${keyAt}.id`);
      k.organizations?.forEach((o, oi) => {
        const orgAt = `${keyAt}.organizations[${oi}]`;
        once(`organization of key ${k.id}`, o.id, `${orgAt}.id`);
        const folders = new Set<string>();
        o.folders?.forEach((f, fi) => {
          if (folders.has(f.id)) throw new FixturesError(`${orgAt}.folders[${fi}].id: folder ${f.id} is listed twice`);
          if (f.parentFolderId !== undefined && f.parentFolderId !== 'root' && !folders.has(f.parentFolderId)) {
            throw new FixturesError(`${orgAt}.folders[${fi}].parentFolderId: no folder ${f.parentFolderId} before it in this organization's folders`);
          }
          folders.add(f.id);
        });
        const documents = new Set<string>();
        o.documents?.forEach((d, di) => {
          const docAt = `${orgAt}.documents[${di}]`;
          if (documents.has(d.id)) throw new FixturesError(`${docAt}.id: document ${d.id} is listed twice`);
          documents.add(d.id);
          if (d.folderId !== undefined && d.folderId !== 'root' && !folders.has(d.folderId)) {
            throw new FixturesError(`${docAt}.folderId: no folder ${d.folderId} in this organization's folders`);
          }
          const editors = new Set<string>();
          d.content?.forEach((c, ci) => {
            if (editors.has(c.editorId)) throw new FixturesError(`${docAt}.content[${ci}].editorId: editor ${c.editorId} is listed twice`);
            editors.add(c.editorId);
            try {
              checkData(c.type, c.data);
            } catch (error) {
              throw new FixturesError(`${docAt}.content[${ci}].data: ${(error as Error).message}`);
            }
          });
        });
      });
    });
  });
}

const KEY_NAME = { testing: 'Test API Key', production: 'Production API Key' } as const;

/**
 * Loads fixtures into an open Hearth (a CLI command's, a server's at start, a reset's). Every row is written in one
 * unit of work, through the operations; the collaborative content after it commits. Refused before anything is
 * written when a workspace or API key id of the file exists already, or when the file contradicts itself.
 */
export async function loadFixtures(app: AppContext, fixtures: Fixtures, options: { intoExisting?: boolean } = {}): Promise<FixturesSummary> {
  const started = performance.now();
  checkFile(fixtures);
  const { storage } = app;
  // A testing-mode reset keeps workspaces and keys (and their credentials): it loads the rest of the file into them.
  const existing = new Set<string>();
  for (const [wi, w] of fixtures.workspaces.entries()) {
    if (options.intoExisting) {
      const workspace = await storage.workspaces.forCredentials(w.id);
      if (workspace) existing.add(w.id);
      for (const [ki, k] of w.apiKeys.entries()) {
        const key = await storage.keys.withScope(k.id, { kind: 'key' });
        if (key && key.key.workspaceId !== w.id) {
          throw new FixturesError(`workspaces[${wi}].apiKeys[${ki}].id: API key ${k.id} belongs to another workspace in this database: nothing was loaded`);
        }
        if (key) existing.add(`key:${k.id}`);
      }
      continue;
    }
    if (await storage.workspaces.forCredentials(w.id)) {
      throw new FixturesError(
        `workspaces[${wi}].id: workspace ${w.id} exists already in this database (fixtures load into a fresh one, or after a reset): nothing was loaded`,
      );
    }
    for (const [ki, k] of w.apiKeys.entries()) {
      if (await storage.keys.scopeFor(k.id)) {
        throw new FixturesError(`workspaces[${wi}].apiKeys[${ki}].id: API key ${k.id} exists already in this database: nothing was loaded`);
      }
    }
  }
  const counts: FixturesSummary['counts'] = {
    organizations: 0,
    folders: 0,
    documents: 0,
    users: 0,
    groups: 0,
    permissions: 0,
    notifications: 0,
    comments: 0,
    contents: 0,
  };
  const contents: Array<{ ctx: KeyContext; data: unknown; at: string }> = [];
  await storage.transaction(async () => {
    // a unit PostgreSQL runs again (a conflict, a deadlock) starts its tally and its content queue afresh
    for (const name of Object.keys(counts) as Array<keyof typeof counts>) counts[name] = 0;
    contents.length = 0;
    for (const [wi, w] of fixtures.workspaces.entries()) {
      const settings = {
        plan: w.plan ?? NEW_WORKSPACE_SETTINGS.plan,
        selfServeProduction: w.selfServeProduction ?? NEW_WORKSPACE_SETTINGS.selfServeProduction,
        maxProductionKeys: w.maxProductionKeys ?? NEW_WORKSPACE_SETTINGS.maxProductionKeys,
      };
      const row = newWorkspaceRow(app, { ownerEmail: w.ownerEmail.toLowerCase(), name: w.ownerName, workspaceName: w.name }, settings, {
        id: w.id,
        authToken: w.authToken,
      });
      const workspaceScope = existing.has(w.id) ? storage.workspaces.scopeOf(row) : await storage.workspaces.insert(row);
      for (const [ki, k] of w.apiKeys.entries()) {
        const keyAt = `workspaces[${wi}].apiKeys[${ki}]`;
        const kept = existing.has(`key:${k.id}`) ? await storage.keys.withScope(k.id, { kind: 'key' }) : undefined;
        const made = kept
          ? { row: kept.key, scope: kept.scope }
          : await insertApiKey(
              app,
              workspaceScope,
              {
                ownerEmail: k.ownerEmail ?? w.ownerEmail,
                type: k.type,
                apiKeyName: k.name ?? KEY_NAME[k.type],
                allowedDomains: k.allowedDomains,
                enablePrivateComments: k.enablePrivateComments,
              },
              k.id,
            );
        if (!kept) for (const t of k.authTokens) await issueAuthToken(app, made.scope, t.name, t.domains ?? [], t.token);
        const ctx: KeyContext = { app, requestId: 'fixtures', clientIp: '127.0.0.1', apiKey: made.row, scope: made.scope };
        for (const [oi, o] of (k.organizations ?? []).entries()) {
          await loadOrganization(ctx, o, `${keyAt}.organizations[${oi}]`, counts, contents);
        }
        for (const [pi, p] of (k.permissions ?? []).entries()) {
          await run(
            ctx,
            '/v2/auth/permissions/add',
            { user: { userId: p.userId }, permissions: { resources: p.resources ?? [], context: p.context } },
            `${keyAt}.permissions[${pi}]`,
          );
          counts.permissions++;
        }
      }
    }
  });
  for (const c of contents) {
    await run(c.ctx, '/v2/crdt/add', c.data, c.at);
    counts.contents++;
  }
  const first = fixtures.workspaces[0];
  const firstKey = first?.apiKeys[0];
  return {
    workspaces: fixtures.workspaces.map((w) => ({
      id: w.id,
      authToken: w.authToken,
      apiKeys: w.apiKeys.map((k) => ({ id: k.id, authTokens: k.authTokens.map((t) => t.token) })),
    })),
    credentials:
      first && firstKey
        ? { workspaceId: first.id, workspaceAuthToken: first.authToken, apiKey: firstKey.id, authToken: (firstKey.authTokens[0] as { token: string }).token }
        : undefined,
    counts,
    durationMs: Math.round(performance.now() - started),
  };
}

type Organization = z.output<typeof fixtureOrganization>;

async function loadOrganization(
  ctx: KeyContext,
  o: Organization,
  at: string,
  counts: FixturesSummary['counts'],
  contents: Array<{ ctx: KeyContext; data: unknown; at: string }>,
) {
  const organizationId = o.id;
  await run(ctx, '/v2/organizations/add', { organizations: [{ organizationId, organizationName: o.name, metadata: o.metadata }] }, `${at}.id`);
  counts.organizations++;
  if (o.users?.length) {
    await run(ctx, '/v2/users/add', { organizationId, users: o.users }, `${at}.users`);
    counts.users += o.users.length;
  }
  for (const [fi, f] of (o.folders ?? []).entries()) {
    await run(
      ctx,
      '/v2/organizations/folders/add',
      { organizationId, folders: [{ folderId: f.id, folderName: f.name, parentFolderId: f.parentFolderId, accessType: f.accessType }] },
      `${at}.folders[${fi}]`,
    );
    counts.folders++;
    if (f.users?.length) {
      await run(ctx, '/v2/users/add', { organizationId, folderId: f.id, users: f.users }, `${at}.folders[${fi}].users`);
      counts.users += f.users.length;
    }
  }
  for (const [gi, g] of (o.groups ?? []).entries()) {
    await run(
      ctx,
      '/v2/organizations/usergroups/add',
      { organizationId, organizationUserGroups: [{ groupId: g.id, groupName: g.name }] },
      `${at}.groups[${gi}]`,
    );
    counts.groups++;
    if (g.userIds?.length) {
      await run(
        ctx,
        '/v1/organizations/usergroups/users/add',
        { organizationId, organizationUserGroupId: g.id, userIds: g.userIds },
        `${at}.groups[${gi}].userIds`,
      );
    }
  }
  for (const [di, d] of (o.documents ?? []).entries()) {
    const docAt = `${at}.documents[${di}]`;
    const documentId = d.id;
    await run(
      ctx,
      '/v2/organizations/documents/add',
      {
        organizationId,
        folderId: d.folderId,
        documents: [{ documentId, documentName: d.name, accessType: d.accessType, metadata: d.metadata }],
      },
      docAt,
    );
    counts.documents++;
    if (d.disabled)
      await run(
        ctx,
        '/v2/organizations/documents/access/disablestate/update',
        { organizationId, documentIds: [documentId], disabled: true },
        `${docAt}.disabled`,
      );
    if (d.users?.length) {
      await run(ctx, '/v2/users/add', { organizationId, documentId, users: d.users }, `${docAt}.users`);
      counts.users += d.users.length;
    }
    if (d.comments?.length) {
      await run(ctx, '/v2/commentannotations/add', { organizationId, documentId, commentAnnotations: d.comments }, `${docAt}.comments`);
      counts.comments += d.comments.length;
    }
    for (const [ni, n] of (d.notifications ?? []).entries()) {
      await run(ctx, '/v2/notifications/add', { ...n, organizationId, documentId }, `${docAt}.notifications[${ni}]`);
      counts.notifications++;
    }
    for (const [ci, c] of (d.content ?? []).entries()) {
      contents.push({
        ctx,
        at: `${docAt}.content[${ci}]`,
        data: { organizationId, documentId, editorId: c.editorId, type: c.type, data: c.data, contentKey: c.contentKey },
      });
    }
  }
  if (o.disabled) await run(ctx, '/v2/organizations/access/disablestate/update', { organizationIds: [organizationId], disabled: true }, `${at}.disabled`);
}
