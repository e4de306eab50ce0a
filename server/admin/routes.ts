import { and, asc, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { apiKeys, crdtDocuments, documents, folders, mailOutbox, memberships, organizations, userGroupMembers, userGroups, users } from '../db/schema.ts';
import { webhookDeliveries } from '../webhooks/delivery-store.ts';
import { readBody, refuseRestOfBody } from '../http/body.ts';
import { answerOf, BodyTooLarge, dispatch, headerNames } from '../http/dispatch.ts';
import { ApiError } from '../http/errors.ts';
import type { AnyOperation } from '../http/operation.ts';
import { createAccessResolver } from '../services/access.ts';
import { listAuthTokens } from '../services/apikeys.ts';
import { authenticateWorkspace, describeSettings, findDefaultWorkspace, findWorkspace, listWorkspaces, updateWorkspaceSettings } from '../services/workspaces.ts';
import type { MonitoredCall } from './monitor.ts';
import { cookieHeader, cookieValue, createSessions, SESSION_COOKIE, UI_HEADER } from './session.ts';
import { SIGN_IN_PATH } from './signin.ts';
import { page, UI_SECURITY_HEADERS } from '../http/html.ts';

const json = (event: H3Event, status: number, body: unknown) => {
  event.res.status = status;
  return body;
};
const refuse = (event: H3Event, status: number, message: string) => json(event, status, { error: { status: status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', message } });

/** The JSON body of an admin call (bounded like the API's), or an error envelope to answer with. */
async function readJson(event: H3Event, limit: number): Promise<{ value: Record<string, unknown> } | { error: { status: number; body: unknown } }> {
  let text: string;
  try {
    text = await readBody(event, limit);
  } catch (error) {
    if (error instanceof BodyTooLarge) refuseRestOfBody(event, limit);
    if (error instanceof ApiError) return { error: { status: 400, body: { error: { status: error.status, message: error.message } } } };
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  } catch {
    // answered below
  }
  return { error: { status: 400, body: { error: { status: 'INVALID_ARGUMENT', message: 'The body must be a JSON object.' } } } };
}

/** Summary of a call for lists and the live feed (bodies only on request, by id). */
const summary = ({ request: _request, response: _response, workspaceId: _workspaceId, ...rest }: MonitoredCall) => ({ ...rest, hasBodies: _request !== undefined });

/**
 * The admin UI's own endpoints under /admin/api (not operations of the interface): its session, the overview,
 * and the request monitor. Everything but signing in needs a session; state changes also need the UI header.
 */
export function registerAdminRoutes(h3: H3, app: AppContext, operations: readonly AnyOperation[]) {
  const sessions = createSessions();
  const workspaceOf = (event: H3Event) => sessions.workspaceOf(cookieValue(event.req.headers.get('cookie')));
  const fromUi = (event: H3Event) => event.req.headers.get(UI_HEADER) === '1';
  // Plan and production-key settings and the data dir are the operator's business (the hosted service keeps
  // them in its billing console): only the default workspace's session sees them.
  const operator = (event: H3Event) => {
    const workspaceId = workspaceOf(event);
    return workspaceId !== null && findDefaultWorkspace(app)?.id === workspaceId;
  };

  h3.get('/admin/api/session', (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const signedIn = workspaceOf(event);
    if (signedIn) return { signedIn: true, workspaceId: signedIn };
    return json(event, 401, {
      signedIn: false,
      error: { status: 'UNAUTHENTICATED', message: 'Open the sign-in link Hearth printed at start (or run npx hearth signin-link), or sign in with the workspace id and auth token.' },
    });
  });

  // The one-time link printed at start (and opened by the desktop app): sets the session cookie, then sends the
  // browser on to the UI, so that the token leaves the address bar; a spent or foreign link gets a page saying
  // how to get a new one.
  h3.get(SIGN_IN_PATH, (event) => {
    const workspaceId = app.signIn.redeem(event.url.searchParams.get('token') ?? '');
    const workspace = workspaceId ? findWorkspace(app, workspaceId) : undefined;
    if (!workspace) {
      return page(
        403,
        'Sign-in link',
        '<h1>This sign-in link was used already, has expired, or is from an earlier run of the server.</h1>' +
          '<p>Get a new one with <code>npx hearth signin-link</code> (add <code>--data-dir</code> if the server uses another one), ' +
          'or sign in at <a href="/">the admin UI</a> with the workspace id and auth token in <code>credentials.json</code>.</p>',
      );
    }
    return new Response(null, { status: 303, headers: { location: '/', 'set-cookie': cookieHeader(sessions.open(workspace.id)), 'cache-control': 'no-store', ...UI_SECURITY_HEADERS } });
  });

  h3.post('/admin/api/session', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { workspaceId?: unknown; workspaceAuthToken?: unknown };
    if (typeof input.workspaceId !== 'string' || typeof input.workspaceAuthToken !== 'string') {
      return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: 'workspaceId and workspaceAuthToken are required.' } });
    }
    try {
      const workspace = authenticateWorkspace(app, input.workspaceId, input.workspaceAuthToken);
      event.res.headers.set('set-cookie', cookieHeader(sessions.open(workspace.id)));
      return { signedIn: true, workspaceId: workspace.id };
    } catch (error) {
      if (error instanceof ApiError) return refuse(event, 403, error.message);
      throw error;
    }
  });

  h3.delete('/admin/api/session', (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    sessions.close(cookieValue(event.req.headers.get('cookie')));
    event.res.headers.set('set-cookie', `${SESSION_COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0`);
    return { signedIn: false };
  });

  h3.get('/admin/api/overview', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const count = (table: string) => app.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ${workspaceId})`)?.n ?? 0;
    // The data dir is the operator's business (the default workspace's session); the credentials file is served
    // to nobody: whoever may read it reads it from the data dir, and the UI calls operations through the session.
    return {
      baseUrl: app.baseUrl,
      dataDir: operator(event) ? app.config.dataDir : null,
      version: app.version,
      workspaceId,
      counts: {
        organizations: count('organizations'),
        documents: count('documents'),
        users: count('users'),
        notifications: count('notifications'),
        crdtDocuments: count('crdt_documents'),
        webhookEndpoints: count('webhook_endpoints'),
        agents: count('agents'),
        workflowDefinitions: count('workflow_definitions'),
      },
    };
  });

  h3.get('/admin/api/keys', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const rows = app.db.select({ id: apiKeys.id, name: apiKeys.name, type: apiKeys.type }).from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).all();
    return { items: rows.map((r) => ({ apiKey: r.id, name: r.name, type: r.type })) };
  });

  // The API explorer and the UI's pages call operations through here, as the signed-in workspace: the server adds
  // the workspace's or the chosen API key's credentials, so the page never holds a token.
  const byPath = new Map(operations.flatMap((op) => [op.path, ...(op.aliases ?? [])].map((path) => [path, op] as const)));
  const names = headerNames(app.config.headerBrand);
  h3.post('/admin/api/call', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { path?: unknown; apiKey?: unknown; data?: unknown };
    const op = typeof input.path === 'string' ? byPath.get(input.path) : undefined;
    if (!op) return json(event, 404, { error: { status: 'NOT_FOUND', message: `Unknown operation: ${String(input.path)}` } });
    const headers = new Headers({ 'content-type': 'application/json' });
    if (op.auth === 'apiKey') {
      const key = typeof input.apiKey === 'string' ? app.db.select({ id: apiKeys.id, workspaceId: apiKeys.workspaceId }).from(apiKeys).where(eq(apiKeys.id, input.apiKey)).get() : undefined;
      if (!key || key.workspaceId !== workspaceId) return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: 'Choose one of this workspace\'s API keys.' } });
      const token = listAuthTokens(app, key.id)[0]?.token;
      if (!token) return json(event, 400, { error: { status: 'FAILED_PRECONDITION', message: 'This API key has no auth token.' } });
      headers.set(names.apiKey, key.id);
      headers.set(names.authToken, token);
    } else if (op.auth === 'workspace') {
      const workspace = findWorkspace(app, workspaceId);
      if (!workspace) return refuse(event, 401, 'Not signed in.');
      headers.set(names.workspaceId, workspace.id);
      headers.set(names.workspaceAuthToken, app.secrets.decrypt(workspace.authTokenEnc));
    }
    const payload = JSON.stringify({ data: input.data ?? {} });
    const outcome = await dispatch(app, op, { method: 'POST', path: op.path, headers, clientIp: 'admin-ui', readBody: async () => payload });
    return { status: outcome.status, requestId: outcome.requestId, body: answerOf(outcome) };
  });

  const keysOf = (workspaceId: string) => app.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).all().map((k) => k.id);

  // The CRDT inspector: every editor document of the workspace's keys, with its storage figures.
  h3.get('/admin/api/crdt', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const keys = keysOf(workspaceId);
    const d = crdtDocuments;
    const rows = keys.length
      ? app.db
          .select({ apiKey: d.apiKeyId, organizationId: d.organizationId, documentId: d.documentId, editorId: d.editorId, type: d.type, contentKey: d.contentKey, snapshot: d.snapshot, updateCount: d.updateCount, compactedAt: d.compactedAt, updatedAt: d.updatedAt, lastUpdatedBy: d.lastUpdatedBy })
          .from(d)
          .where(inArray(d.apiKeyId, keys))
          .orderBy(asc(d.organizationId), asc(d.documentId), asc(d.editorId))
          .limit(1000)
          .all()
      : [];
    return {
      items: rows.map(({ snapshot, ...r }) => ({ ...r, snapshotBytes: snapshot?.length ?? 0, connections: app.crdt.connections({ apiKeyId: r.apiKey, organizationId: r.organizationId, documentId: r.documentId, editorId: r.editorId }) })),
    };
  });

  h3.post('/admin/api/crdt/ticket', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as Record<string, unknown>;
    const { apiKey, organizationId, documentId, editorId } = input;
    if (![apiKey, organizationId, documentId, editorId].every((v) => typeof v === 'string')) return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: 'apiKey, organizationId, documentId and editorId are required.' } });
    const key = { apiKeyId: apiKey as string, organizationId: organizationId as string, documentId: documentId as string, editorId: editorId as string };
    const d = crdtDocuments;
    const exists = keysOf(workspaceId).includes(key.apiKeyId) && app.db.select({ type: d.type }).from(d).where(and(eq(d.apiKeyId, key.apiKeyId), eq(d.organizationId, key.organizationId), eq(d.documentId, key.documentId), eq(d.editorId, key.editorId))).get();
    if (!exists) return json(event, 404, { error: { status: 'NOT_FOUND', message: 'No such editor document in this workspace.' } });
    return { ticket: app.uiTickets.issue(key), type: exists.type };
  });

  h3.get('/admin/api/workspaces', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    if (!operator(event)) return refuse(event, 403, "Only the default workspace's session manages plans.");
    return { items: listWorkspaces(app).map(describeSettings) };
  });
  h3.post('/admin/api/workspaces/settings', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    if (!operator(event)) return refuse(event, 403, "Only the default workspace's session manages plans.");
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { workspaceId?: unknown; plan?: unknown; selfServeProduction?: unknown; maxProductionKeys?: unknown };
    const bad = (message: string) => json(event, 400, { error: { status: 'INVALID_ARGUMENT', message } });
    if (typeof input.workspaceId !== 'string' || !findWorkspace(app, input.workspaceId)) return bad('workspaceId must name a workspace.');
    if (input.plan !== undefined && input.plan !== 'free' && input.plan !== 'paid') return bad('plan must be free or paid.');
    if (input.selfServeProduction !== undefined && typeof input.selfServeProduction !== 'boolean') return bad('selfServeProduction must be true or false.');
    if (input.maxProductionKeys !== undefined && !(Number.isInteger(input.maxProductionKeys) && (input.maxProductionKeys as number) >= 0 && (input.maxProductionKeys as number) <= 1000)) {
      return bad('maxProductionKeys must be a whole number from 0 to 1000.');
    }
    const updated = updateWorkspaceSettings(app, input.workspaceId, {
      plan: input.plan as 'free' | 'paid' | undefined,
      selfServeProduction: input.selfServeProduction as boolean | undefined,
      maxProductionKeys: input.maxProductionKeys as number | undefined,
    });
    return describeSettings(updated);
  });

  // The data browser: organizations → folders and documents → who can open a document, and why.
  const ownKey = (event: H3Event) => {
    const workspaceId = workspaceOf(event);
    const apiKey = event.url.searchParams.get('apiKey') ?? '';
    return workspaceId && keysOf(workspaceId).includes(apiKey) ? apiKey : null;
  };
  h3.get('/admin/api/browse/organizations', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const apiKey = ownKey(event);
    if (!apiKey) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    const o = organizations;
    return { items: app.db.select({ id: o.id, name: o.name, disabled: o.disabled }).from(o).where(eq(o.apiKeyId, apiKey)).orderBy(asc(o.id)).limit(1000).all() };
  });

  h3.get('/admin/api/browse/organization', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const apiKey = ownKey(event);
    const organizationId = event.url.searchParams.get('organizationId') ?? '';
    if (!apiKey) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    const f = folders;
    const d = documents;
    const m = memberships;
    return {
      folders: app.db.select({ id: f.id, name: f.name, parentId: f.parentId, accessType: f.accessType }).from(f).where(and(eq(f.apiKeyId, apiKey), eq(f.organizationId, organizationId))).orderBy(asc(f.path)).limit(2000).all(),
      documents: app.db.select({ id: d.id, name: d.name, folderId: d.folderId, accessType: d.accessType, disabled: d.disabled }).from(d).where(and(eq(d.apiKeyId, apiKey), eq(d.organizationId, organizationId))).orderBy(asc(d.id)).limit(2000).all(),
      groups: app.db
        .select({ id: userGroups.id, name: userGroups.name })
        .from(userGroups)
        .where(and(eq(userGroups.apiKeyId, apiKey), eq(userGroups.organizationId, organizationId)))
        .orderBy(asc(userGroups.id))
        .limit(1000)
        .all()
        .map((g) => ({
          ...g,
          userIds: app.db
            .select({ userId: userGroupMembers.userId })
            .from(userGroupMembers)
            .where(and(eq(userGroupMembers.apiKeyId, apiKey), eq(userGroupMembers.organizationId, organizationId), eq(userGroupMembers.groupId, g.id)))
            .orderBy(asc(userGroupMembers.userId))
            .limit(1000)
            .all()
            .map((u) => u.userId),
        })),
      members: app.db
        .select({ userId: m.userId, level: m.level, resourceId: m.resourceId, accessRole: m.accessRole, expiresAt: m.expiresAt })
        .from(m)
        .where(and(eq(m.apiKeyId, apiKey), eq(m.organizationId, organizationId)))
        .orderBy(asc(m.userId), asc(m.level))
        .limit(5000)
        .all(),
    };
  });

  h3.get('/admin/api/browse/access', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const apiKey = ownKey(event);
    const organizationId = event.url.searchParams.get('organizationId') ?? '';
    const documentId = event.url.searchParams.get('documentId') ?? '';
    if (!apiKey) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    // everyone with a membership anywhere in the organization, plus any user asked about by id
    const ids = new Set(app.db.selectDistinct({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.apiKeyId, apiKey), eq(memberships.organizationId, organizationId))).limit(1000).all().map((r) => r.userId));
    const asked = event.url.searchParams.get('userId');
    if (asked) ids.add(asked);
    const names = new Map(ids.size ? app.db.select({ id: users.id, name: users.name }).from(users).where(and(eq(users.apiKeyId, apiKey), inArray(users.id, [...ids]))).all().map((u) => [u.id, u.name]) : []);
    const resolver = createAccessResolver(app.db, apiKey, organizationId);
    return {
      users: [...ids].sort().map((userId) => {
        const decision = resolver.document(userId, documentId);
        return { userId, name: names.get(userId) ?? null, access: decision.access, accessRole: decision.accessRole, accessType: decision.accessType, reasons: decision.reasons };
      }),
    };
  });

  // What a webhook delivery sent: the exact body (the same on every attempt; each attempt is signed anew).
  h3.get('/admin/api/webhooks/delivery', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const apiKey = ownKey(event);
    if (!apiKey) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    const w = webhookDeliveries;
    const row = app.deliveries
      .select({ url: w.url, body: w.body, status: w.status, attempts: w.attempts })
      .from(w)
      .where(and(eq(w.apiKeyId, apiKey), eq(w.eventId, event.url.searchParams.get('messageId') ?? ''), eq(w.target, event.url.searchParams.get('endpointId') ?? '')))
      .get();
    if (!row) return json(event, 404, { error: { status: 'NOT_FOUND', message: 'No such delivery.' } });
    return { method: 'POST', ...row, headers: ['content-type: application/json', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] };
  });

  // The mailbox: mail Hearth wrote for this workspace (login links, notification e-mails), newest first.
  const mailOf = (workspaceId: string) => {
    const keys = keysOf(workspaceId);
    return keys.length ? or(eq(mailOutbox.workspaceId, workspaceId), inArray(mailOutbox.apiKeyId, keys)) : eq(mailOutbox.workspaceId, workspaceId);
  };
  h3.get('/admin/api/mail', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const m = mailOutbox;
    const rows = app.db
      .select({ id: m.id, kind: m.kind, to: m.toAddress, subject: m.subject, status: m.status, lastError: m.lastError, createdAt: m.createdAt, sentAt: m.sentAt })
      .from(m)
      .where(mailOf(workspaceId))
      .orderBy(desc(m.createdAt), desc(m.id))
      .limit(200)
      .all();
    return { items: rows };
  });

  h3.get('/admin/api/mail/:id', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const row = app.db.select().from(mailOutbox).where(and(eq(mailOutbox.id, event.context.params?.id ?? ''), mailOf(workspaceId))).get();
    if (!row) return json(event, 404, { error: { status: 'NOT_FOUND', message: 'No such mail in this workspace.' } });
    const body = JSON.parse(app.secrets.decrypt(row.bodyEnc)) as { text: string; html: string };
    return { id: row.id, kind: row.kind, to: row.toAddress, subject: row.subject, status: row.status, createdAt: row.createdAt, text: body.text, html: body.html };
  });

  h3.get('/admin/api/requests', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    return { items: app.monitor.recent(workspaceId).map(summary) };
  });

  // Server-sent events: every new call as it is answered. EventSource cannot send headers, so this GET needs
  // the session cookie only (it changes nothing, and a cross-site page can neither send that cookie nor read it).
  h3.get('/admin/api/requests/stream', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const encoder = new TextEncoder();
    let stop = () => undefined as unknown;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const write = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            stop();
          }
        };
        const keepalive = setInterval(() => write(': keepalive\n\n'), 15_000);
        const unwatch = app.monitor.watch(workspaceId, {
          send: (call) => write(`data: ${JSON.stringify(summary(call))}\n\n`),
          end: () => {
            stop();
            try {
              controller.close();
            } catch {
              // already closed
            }
          },
        });
        stop = () => {
          clearInterval(keepalive);
          unwatch();
        };
        event.req.signal?.addEventListener('abort', () => stop(), { once: true });
        write(': connected\n\n');
      },
      cancel() {
        stop();
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' } });
  });

  h3.get('/admin/api/requests/:id', (event) => {
    const workspaceId = workspaceOf(event);
    if (!workspaceId) return refuse(event, 401, 'Not signed in.');
    const call = app.monitor.find(workspaceId, Number(event.context.params?.id));
    return call ? { ...summary(call), request: call.request, response: call.response } : json(event, 404, { error: { status: 'NOT_FOUND', message: "No such call of this workspace in the monitor (it keeps each workspace's last 500)." } });
  });
}
