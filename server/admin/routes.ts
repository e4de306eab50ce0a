import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { readBody, refuseRestOfBody } from '../http/body.ts';
import { answerOf, BodyTooLarge, checkLongJson, dispatch, headerNames } from '../http/dispatch.ts';
import { ApiError } from '../errors.ts';
import type { AnyOperation } from '../http/operation.ts';
import { createAccessResolver } from '../services/access.ts';
import { listAuthTokens } from '../services/apikeys.ts';
import {
  authenticateWorkspace,
  describeSettings,
  findDefaultWorkspace,
  findWorkspace,
  listWorkspaces,
  updateWorkspaceSettings,
} from '../services/workspaces.ts';
import type { MonitoredCall } from './monitor.ts';
import { maskedHeaders } from './monitor-events.ts';
import { redactAnswer, redactRequest } from '../http/redact.ts';
import { cookieHeader, cookieValue, createSessions, SESSION_COOKIE, UI_HEADER } from './session.ts';
import { SIGN_IN_PATH } from './signin.ts';
import { registerBrowseRoutes } from './browse-routes.ts';
import { registerCrdtRoutes } from './crdt-routes.ts';
import { registerDataRoutes } from './data-routes.ts';
import type { AdminKit } from './kit.ts';
import type { Gauges } from '../http/ops-endpoints.ts';
import { registerOpsRoutes } from './ops-routes.ts';
import type { KeyListRow } from '../db/repos/inspection.ts';
import { bodyOf, fail, guard, keyGuard, queryOf } from './kit.ts';
import { deliveryQuery, keyStateInput, type KeyItem } from '../../shared/admin.ts';
import { signatureHeader } from '../webhooks/crypto.ts';
import { page, UI_SECURITY_HEADERS } from '../http/html.ts';

const json = (event: H3Event, status: number, body: unknown) => {
  event.res.status = status;
  return body;
};
const refuse = (event: H3Event, status: number, message: string) =>
  json(event, status, { error: { status: status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED', message } });

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
    checkLongJson(text);
  } catch (error) {
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

/** A key as the admin UI lists it. */
const describeKey = (r: KeyListRow): KeyItem => ({ apiKey: r.id, name: r.name, type: r.type, disabled: r.disabled === 1, disabledAt: r.disabledAt });

/** Summary of a call for lists and the live feed (bodies only on request, by id). */
const summary = ({
  request: _request,
  response: _response,
  requestHeaders: _headers,
  responseHeaders: _responseHeaders,
  workspaceId: _workspaceId,
  ...rest
}: MonitoredCall) => ({
  ...rest,
  hasBodies: _request !== undefined,
});

/**
 * The admin UI's own endpoints under /admin/api (not operations of the interface): its session, the overview,
 * and the request monitor. Everything but signing in needs a session; state changes also need the UI header.
 */
export function registerAdminRoutes(h3: H3, app: AppContext, operations: readonly AnyOperation[], gauges: Gauges) {
  const sessions = createSessions();
  const queries = app.storage.inspection;
  const deliveries = app.storage.deliveries;
  const workspaceOf = (event: H3Event) => sessions.workspaceOf(cookieValue(event.req.headers.get('cookie')));
  const fromUi = (event: H3Event) => event.req.headers.get(UI_HEADER) === '1';
  const kit: AdminKit = { app, workspaceOf, fromUi };
  // Plan and production-key settings and the data dir are the operator's business (the hosted service keeps
  // them in its billing console): only the default workspace's session sees them.
  const operator = async (event: H3Event) => {
    const workspace = workspaceOf(event);
    return workspace !== null && (await findDefaultWorkspace(app))?.id === workspace.workspaceId;
  };

  h3.get('/admin/api/session', (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const signedIn = workspaceOf(event);
    if (signedIn) return { signedIn: true, workspaceId: signedIn.workspaceId };
    return json(event, 401, {
      signedIn: false,
      error: {
        status: 'UNAUTHENTICATED',
        message: 'Open the sign-in link Hearth printed at start (or run npx hearth signin-link), or sign in with the workspace id and auth token.',
      },
    });
  });

  // The one-time link printed at start (and opened by the desktop app): sets the session cookie, then sends the
  // browser on to the UI, so that the token leaves the address bar; a spent or foreign link gets a page saying
  // how to get a new one.
  h3.get(SIGN_IN_PATH, async (event) => {
    const workspaceId = app.signIn.redeem(event.url.searchParams.get('token') ?? '');
    const found = workspaceId ? await findWorkspace(app, workspaceId) : undefined;
    if (!found) {
      return page(
        403,
        'Sign-in link',
        '<h1>This sign-in link was used already, has expired, or is from an earlier run of the server.</h1>' +
          '<p>Get a new one with <code>npx hearth signin-link</code> (add <code>--data-dir</code> if the server uses another one), ' +
          'or sign in at <a href="/">the admin UI</a> with the workspace id and auth token in <code>credentials.json</code>.</p>',
      );
    }
    return new Response(null, {
      status: 303,
      headers: { location: '/', 'set-cookie': cookieHeader(sessions.open(found.scope)), 'cache-control': 'no-store', ...UI_SECURITY_HEADERS },
    });
  });

  h3.post('/admin/api/session', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    // read before anyone is signed in: no more than a pre-auth body (issue 42)
    const body = await readJson(event, app.config.preAuthBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { workspaceId?: unknown; workspaceAuthToken?: unknown };
    if (typeof input.workspaceId !== 'string' || typeof input.workspaceAuthToken !== 'string') {
      return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: 'workspaceId and workspaceAuthToken are required.' } });
    }
    try {
      const { workspace, scope } = await authenticateWorkspace(app, input.workspaceId, input.workspaceAuthToken);
      event.res.headers.set('set-cookie', cookieHeader(sessions.open(scope)));
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

  h3.get('/admin/api/overview', async (event) => {
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const counts = await queries.workspaceCounts(workspace);
    const count = (table: string) => counts[table] ?? 0;
    // The data dir is the operator's business (the default workspace's session); the credentials file is served
    // to nobody: whoever may read it reads it from the data dir, and the UI calls operations through the session.
    return {
      baseUrl: app.baseUrl,
      dataDir: (await operator(event)) ? app.config.dataDir : null,
      version: app.version,
      workspaceId: workspace.workspaceId,
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

  h3.get('/admin/api/keys', async (event) => {
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const rows = await queries.keys(workspace);
    return { items: rows.map(describeKey) };
  });

  // Disabling a key is the workspace admin's act (the interface has no such operation): from the next call on,
  // every operation and websocket upgrade with it is refused (services/apikeys.ts), and its open connections are
  // checked again and closed (crdt/revocation.ts). Enabling it restores it. Its data, tokens and settings stay.
  h3.post('/admin/api/keys/state', async (event) => {
    const g0 = guard(kit, event, { change: true });
    if (!g0.ok) return g0.error;
    const input = await bodyOf(event, app, keyStateInput);
    if (!input.ok) return input.error;
    const { apiKey, disabled } = input.value;
    const g = await keyGuard(kit, event, apiKey, { change: true });
    if (!g.ok) return g.error;
    const now = Date.now();
    // the key's row changes through its own repository: the verified-credentials cache sees the write (http/credentials.ts)
    await app.storage.keys.update(g.scope, { disabled, disabledAt: disabled ? now : null, updatedAt: now });
    if (disabled) app.accessEvents.publish({ apiKeyId: g.scope.apiKeyId });
    const row = await queries.key(g.scope);
    return row ? describeKey(row) : fail(event, 404, "Choose one of this workspace's API keys.");
  });

  // The API explorer and the UI's pages call operations through here, as the signed-in workspace: the server adds
  // the workspace's or the chosen API key's credentials, so the page never holds a token.
  const byPath = new Map(operations.flatMap((op) => [op.path, ...(op.aliases ?? [])].map((path) => [path, op] as const)));
  const names = headerNames(app.config.headerBrand);
  h3.post('/admin/api/call', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { path?: unknown; apiKey?: unknown; data?: unknown };
    const op = typeof input.path === 'string' ? byPath.get(input.path) : undefined;
    if (!op) return json(event, 404, { error: { status: 'NOT_FOUND', message: `Unknown operation: ${String(input.path)}` } });
    const headers = new Headers({ 'content-type': 'application/json' });
    if (op.auth === 'apiKey') {
      const scope = typeof input.apiKey === 'string' ? await queries.keyScope(workspace, input.apiKey) : undefined;
      if (!scope) return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: "Choose one of this workspace's API keys." } });
      const token = (await listAuthTokens(app, scope))[0]?.token;
      if (!token) return json(event, 400, { error: { status: 'FAILED_PRECONDITION', message: 'This API key has no auth token.' } });
      headers.set(names.apiKey, scope.apiKeyId);
      headers.set(names.authToken, token);
    } else if (op.auth === 'workspace') {
      const found = await findWorkspace(app, workspace.workspaceId);
      if (!found) return refuse(event, 401, 'Not signed in.');
      headers.set(names.workspaceId, found.workspace.id);
      headers.set(names.workspaceAuthToken, app.secrets.decrypt(found.workspace.authTokenEnc));
    }
    const payload = JSON.stringify({ data: input.data ?? {} });
    const started = performance.now();
    const outcome = await dispatch(app, op, { method: 'POST', path: op.path, headers, clientIp: 'admin-ui', readBody: async () => payload });
    const answer = answerOf(outcome);
    // the UI's own calls (its editing, the explorer) show in the request monitor too, marked as the UI's
    app.monitor.record(
      {
        at: Date.now(),
        method: 'POST',
        path: op.path,
        status: outcome.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        caller: headers.get(names.apiKey) ?? headers.get(names.workspaceId),
        requestId: outcome.requestId,
        workspaceId: workspace.workspaceId,
        kind: 'ui',
      },
      () => ({
        request: redactRequest(op, payload),
        response: redactAnswer(op, JSON.stringify(answer)),
        headers: maskedHeaders(app.config.headerBrand, headers),
      }),
    );
    return { status: outcome.status, requestId: outcome.requestId, body: answer };
  });

  // The API explorer's marks of fields required only in some cases (issue 44, point 8): the custom checks
  // (zod refine) of each operation's input that name a field, with their message ("is required when …").
  let conditions: Record<string, Array<{ field: string; when: string }>> | undefined;
  h3.get('/admin/api/operations/conditions', (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    conditions ??= conditionalFields(operations);
    return conditions;
  });

  // The CRDT inspector: every editor document of the workspace's keys, with its storage figures.
  h3.get('/admin/api/crdt', async (event) => {
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const rows = await queries.workspaceCrdt(workspace, 1000);
    return {
      items: rows.slice(0, 1000).map((r) => ({
        ...r,
        connections: app.crdt.connections({ apiKeyId: r.apiKey, organizationId: r.organizationId, documentId: r.documentId, editorId: r.editorId }),
      })),
    };
  });

  h3.post('/admin/api/crdt/ticket', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as Record<string, unknown>;
    const { apiKey, organizationId, documentId, editorId } = input;
    if (![apiKey, organizationId, documentId, editorId].every((v) => typeof v === 'string'))
      return json(event, 400, { error: { status: 'INVALID_ARGUMENT', message: 'apiKey, organizationId, documentId and editorId are required.' } });
    const key = { apiKeyId: apiKey as string, organizationId: organizationId as string, documentId: documentId as string, editorId: editorId as string };
    const scope = await queries.keyScope(workspace, key.apiKeyId);
    const exists = scope && (await queries.crdt(scope, key.organizationId, key.documentId, key.editorId));
    if (!exists) return json(event, 404, { error: { status: 'NOT_FOUND', message: 'No such editor document in this workspace.' } });
    return { ticket: app.uiTickets.issue(key), type: exists.type };
  });

  h3.get('/admin/api/workspaces', async (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    if (!(await operator(event))) return refuse(event, 403, "Only the default workspace's session manages plans.");
    return { items: (await listWorkspaces(app)).map(describeSettings) };
  });
  h3.post('/admin/api/workspaces/settings', async (event) => {
    if (!fromUi(event)) return refuse(event, 403, `The admin API needs the ${UI_HEADER} header.`);
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    if (!(await operator(event))) return refuse(event, 403, "Only the default workspace's session manages plans.");
    const body = await readJson(event, app.config.maxBodyBytes);
    if ('error' in body) return json(event, body.error.status, body.error.body);
    const input = body.value as { workspaceId?: unknown; plan?: unknown; selfServeProduction?: unknown; maxProductionKeys?: unknown };
    const bad = (message: string) => json(event, 400, { error: { status: 'INVALID_ARGUMENT', message } });
    const target = typeof input.workspaceId === 'string' ? await findWorkspace(app, input.workspaceId) : undefined;
    if (!target) return bad('workspaceId must name a workspace.');
    if (input.plan !== undefined && input.plan !== 'free' && input.plan !== 'paid') return bad('plan must be free or paid.');
    if (input.selfServeProduction !== undefined && typeof input.selfServeProduction !== 'boolean') return bad('selfServeProduction must be true or false.');
    if (
      input.maxProductionKeys !== undefined &&
      !(Number.isInteger(input.maxProductionKeys) && (input.maxProductionKeys as number) >= 0 && (input.maxProductionKeys as number) <= 1000)
    ) {
      return bad('maxProductionKeys must be a whole number from 0 to 1000.');
    }
    const updated = await updateWorkspaceSettings(app, target.scope, {
      plan: input.plan as 'free' | 'paid' | undefined,
      selfServeProduction: input.selfServeProduction as boolean | undefined,
      maxProductionKeys: input.maxProductionKeys as number | undefined,
    });
    return describeSettings(updated);
  });

  // The data browser: organizations → folders and documents → who can open a document, and why.
  /** The scope of the key named by the `apiKey` parameter, when it is one of the session's workspace's. */
  const ownKey = async (event: H3Event) => {
    const workspace = workspaceOf(event);
    return workspace ? queries.keyScope(workspace, event.url.searchParams.get('apiKey') ?? '') : undefined;
  };
  h3.get('/admin/api/browse/organizations', async (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const scope = await ownKey(event);
    if (!scope) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    return {
      items: (await queries.organizationsPage(scope, undefined, 'id', { after: null, dir: 'asc', limit: 999 }))
        .slice(0, 1000)
        .map((o) => ({ id: o.id, name: o.name, disabled: o.disabled === 1 })),
    };
  });

  h3.get('/admin/api/browse/organization', async (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const scope = await ownKey(event);
    const organizationId = event.url.searchParams.get('organizationId') ?? '';
    if (!scope) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    return queries.organizationTree(scope, organizationId);
  });

  h3.get('/admin/api/browse/access', async (event) => {
    if (!workspaceOf(event)) return refuse(event, 401, 'Not signed in.');
    const scope = await ownKey(event);
    const organizationId = event.url.searchParams.get('organizationId') ?? '';
    const documentId = event.url.searchParams.get('documentId') ?? '';
    if (!scope) return json(event, 404, { error: { status: 'NOT_FOUND', message: "Choose one of this workspace's API keys." } });
    // everyone with a membership anywhere in the organization, plus any user asked about by id
    const { ids, names } = await queries.membersWithNames(scope, organizationId, 1000, event.url.searchParams.get('userId'));
    // every user's decision in one step of the access model
    const users = await createAccessResolver(app, scope, organizationId).batch((resolver) =>
      ids.sort().map((userId) => {
        const decision = resolver.document(userId, documentId);
        return {
          userId,
          name: names.get(userId) ?? null,
          access: decision.access,
          accessRole: decision.accessRole,
          accessType: decision.accessType,
          reasons: decision.reasons,
        };
      }),
    );
    return { users };
  });

  // What a webhook delivery sent: the exact body (the same on every attempt) and, for one attempt, the headers of
  // its request as they went out and of the receiver's answer as received (kept with the attempt). Attempts
  // recorded before Hearth kept headers get them worked out again: the webhook-timestamp of the second the attempt
  // started and its signature under the endpoint's current secret (so it may differ after a rotation).
  h3.get('/admin/api/webhooks/delivery', async (event) => {
    const input = queryOf(event, deliveryQuery);
    if (!input.ok) return input.error;
    const { apiKey, messageId, endpointId, attemptId, at } = input.value;
    const g = await keyGuard(kit, event, apiKey);
    if (!g.ok) return g.error;
    const row = await deliveries.delivery(g.scope, messageId, endpointId);
    if (!row) return fail(event, 404, 'No such delivery.');
    const attempt = attemptId ? await deliveries.attemptHeaders(g.scope, attemptId) : undefined;
    if (attemptId && (!attempt || attempt.eventId !== messageId || attempt.target !== endpointId))
      return fail(event, 404, `No attempt ${attemptId} of this delivery.`);
    const lines = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => `${name}: ${value}`);
    const response = {
      responseHeaders: attempt?.responseHeaders ? lines(attempt.responseHeaders) : null,
      responseHeadersOmitted: attempt?.responseHeadersOmitted ?? 0,
    };
    if (attempt?.requestHeaders) return { method: 'POST', ...row, headers: lines(attempt.requestHeaders), headersFrom: 'sent', ...response };
    const startedAt = attempt?.timestamp ?? at;
    const secret = await queries.endpointSecret(g.scope, endpointId);
    const headers = ['content-type: application/json', `webhook-id: ${messageId}`];
    if (startedAt !== undefined) {
      const timestamp = Math.floor(startedAt / 1000);
      headers.push(`webhook-timestamp: ${timestamp}`);
      if (secret) headers.push(`webhook-signature: ${signatureHeader([app.secrets.decrypt(secret)], messageId, timestamp, row.body)}`);
    } else
      headers.push(
        'webhook-timestamp: (the second each attempt started)',
        'webhook-signature: (v1, HMAC-SHA256 of id.timestamp.body under the endpoint secret, per attempt)',
      );
    return { method: 'POST', ...row, headers, headersFrom: startedAt === undefined ? 'template' : 'recomputed', ...response };
  });

  h3.get('/admin/api/requests', (event) => {
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    return { items: app.monitor.recent(workspace.workspaceId).map(summary) };
  });

  // Server-sent events: every new call as it is answered. EventSource cannot send headers, so this GET needs
  // the session cookie only (it changes nothing, and a cross-site page can neither send that cookie nor read it).
  h3.get('/admin/api/requests/stream', (event) => {
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
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
        const unwatch = app.monitor.watch(workspace.workspaceId, {
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
    const workspace = workspaceOf(event);
    if (!workspace) return refuse(event, 401, 'Not signed in.');
    const call = app.monitor.find(workspace.workspaceId, Number(event.context.params?.id));
    return call
      ? { ...summary(call), request: call.request, response: call.response, requestHeaders: call.requestHeaders, responseHeaders: call.responseHeaders }
      : json(event, 404, { error: { status: 'NOT_FOUND', message: "No such call of this workspace in the monitor (it keeps each workspace's last 500)." } });
  });

  registerBrowseRoutes(h3, kit);
  registerCrdtRoutes(h3, kit);
  registerOpsRoutes(h3, kit, gauges);
  registerDataRoutes(h3, kit);
}

interface ZodInternals {
  _zod?: { def?: { type?: string; in?: ZodInternals; innerType?: ZodInternals; checks?: Array<{ _zod?: { def?: CheckDef } }> } };
}
interface CheckDef {
  check?: string;
  path?: PropertyKey[];
  error?: unknown;
}

/**
 * Each operation's top-level custom checks that name a field, as { field, when }: what the explorer marks as
 * "required when …". A check's message is its `error` (zod keeps a string as a function answering it).
 */
export function conditionalFields(operations: readonly AnyOperation[]): Record<string, Array<{ field: string; when: string }>> {
  const out: Record<string, Array<{ field: string; when: string }>> = {};
  for (const op of operations) {
    let schema = op.input as unknown as ZodInternals | undefined;
    // through a pipe (a transform after the object) or a wrapper to the object and its checks
    for (let i = 0; i < 4 && schema?._zod?.def && !schema._zod.def.checks?.length; i++) schema = schema._zod.def.in ?? schema._zod.def.innerType;
    for (const c of schema?._zod?.def?.checks ?? []) {
      const def = c._zod?.def;
      const field = def?.path?.[0];
      if (def?.check !== 'custom' || typeof field !== 'string') continue;
      let message: unknown;
      try {
        message = typeof def.error === 'function' ? (def.error as (issue: object) => unknown)({}) : def.error;
      } catch {
        message = undefined;
      }
      const text = typeof message === 'string' ? message : (message as { message?: unknown } | undefined)?.message;
      if (typeof text === 'string' && /required/i.test(text)) (out[op.path] ??= []).push({ field, when: text });
    }
  }
  return out;
}
