import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { getRequestIP, H3, toNodeHandler, type H3Event } from 'h3';
import { registerAdminRoutes } from '../admin/routes.ts';
import { RENDERER_DIST } from '../paths.ts';
import type { AppContext } from '../context.ts';
import { findAttachment } from '../services/recordings.ts';
import { readBody, refuseRestOfBody } from './body.ts';
import { answerOf, type IncomingCall } from './dispatch.ts';
import { createRequestListener, serveCall } from './listener.ts';
import { registerLoginLinkRoutes } from './login-link-routes.ts';
import { registerGauges, registerOpsEndpoints } from './ops-endpoints.ts';
import type { AnyOperation } from './operation.ts';
import { buildOpenApi } from './openapi.ts';
import { UI_SECURITY_HEADERS } from './html.ts';

/** Throws on a path registered twice: two files claiming one path is always a mistake. */
export function checkRegistry(operations: readonly AnyOperation[]) {
  const seen = new Set<string>();
  for (const op of operations) {
    for (const path of [op.path, ...(op.aliases ?? [])]) {
      if (seen.has(path)) throw new Error(`Operation path registered twice: ${path}`);
      seen.add(path);
    }
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** The built admin UI (renderer/dist); a single-page app, so unknown paths get index.html. */
function serveUi(pathname: string): Response {
  const index = join(RENDERER_DIST, 'index.html');
  if (!existsSync(index)) {
    return new Response(
      '<!doctype html><html><head><title>Hearth</title></head><body><h1>Hearth is running</h1>' +
        '<p>The admin UI has not been built in this checkout: run <code>npm run build:renderer</code>.</p>' +
        '<p>The API is served at this address: <code>POST /v2/ping</code>, and its description at <a href="/openapi.json">/openapi.json</a>.</p></body></html>',
      { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', ...UI_SECURITY_HEADERS } },
    );
  }
  const relative = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  const file = join(RENDERER_DIST, relative);
  const inside = file === RENDERER_DIST || file.startsWith(RENDERER_DIST + sep);
  const target = inside && relative && existsSync(file) && statSync(file).isFile() ? file : index;
  const type = CONTENT_TYPES[extname(target)] ?? 'application/octet-stream';
  const cache = target === index ? 'no-cache' : 'public, max-age=31536000, immutable';
  return new Response(readFileSync(target), { status: 200, headers: { 'content-type': type, 'cache-control': cache, ...UI_SECURITY_HEADERS } });
}

/**
 * The h3 application: one route per operation, the OpenAPI document, login links, the UI, and 404 envelopes.
 * Its node:http handler (what `toNodeHandler` returns for it) serves operation POSTs on their exact paths
 * directly (listener.ts) and hands everything else to h3. `mount` adds the routes of layers above this one
 * (testing mode's, server/testing/routes.ts, from index.ts) before the catch-all.
 */
export function createHttpApp(app: AppContext, operations: readonly AnyOperation[], mount: (h3: H3) => void = () => undefined): H3 {
  checkRegistry(operations);
  const h3 = new H3();
  for (const op of operations) {
    // Calls h3 routes: other methods than POST (refused by the rules) and URLs the exact-path Map misses.
    const handler = async (event: H3Event) => {
      let requestText: string | undefined;
      const call: IncomingCall = {
        method: event.req.method,
        path: op.path,
        headers: event.req.headers,
        clientIp: getRequestIP(event) ?? 'unknown',
        readBody: async (limit) => (requestText = await readBody(event, limit)),
      };
      const { outcome } = await serveCall(app, op, call, event.url.pathname, () => requestText);
      // Status and headers on event.res with a plain object returned: h3 then serializes it into its fast
      // response type, which skips the web-stream body a `new Response(string)` costs on Node.
      event.res.status = outcome.status;
      event.res.headers.set('x-request-id', outcome.requestId);
      // after a refused oversized body the connection closes, once the rest is dropped (dropRestOfBody)
      if (outcome.bodyUnread) refuseRestOfBody(event, app.config.maxBodyBytes);
      // an answer kept as JSON text (response cache, constant answer; rare on this way: only unusual URLs of a POST get here)
      return answerOf(outcome);
    };
    for (const path of [op.path, ...(op.aliases ?? [])]) h3.all(path, handler);
  }

  let openapi: string | undefined;
  h3.get('/openapi.json', () => {
    openapi ??= JSON.stringify(buildOpenApi(operations, { version: app.version, brand: app.config.headerBrand }));
    return new Response(openapi, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  });

  registerLoginLinkRoutes(h3, app);

  h3.get('/attachments/:key', async (event) => {
    const found = await findAttachment(app, event.context.params?.key ?? '');
    if (!found) return new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } });
    // a file read or PostgreSQL's answer: a view of an ArrayBuffer, never of a SharedArrayBuffer (which the type allows)
    return new Response(found.bytes as Uint8Array<ArrayBuffer>, {
      headers: {
        'content-type': found.mimeType,
        'content-length': String(found.bytes.length),
        'cache-control': 'private, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
    });
  });

  const gauges = registerGauges(app);
  registerOpsEndpoints(h3, app, gauges);
  registerAdminRoutes(h3, app, operations, gauges);
  mount(h3);

  h3.all('/**', (event) => {
    if (event.req.method === 'GET' || event.req.method === 'HEAD') return serveUi(event.url.pathname);
    event.res.status = 404;
    return { error: { status: 'NOT_FOUND', message: `Unknown operation: ${event.url.pathname}` } };
  });

  // h3's own node handler, made before the next line; then srvx's toNodeHandler (behind h3's) returns the
  // fetch handler's `__nodeHandler` as it is, so that the server runs the operations' listener first.
  // test/unit/request-listener.test.ts checks that it does.
  const h3NodeHandler = toNodeHandler(h3);
  Object.assign(h3.fetch, { __nodeHandler: createRequestListener(app, operations, h3NodeHandler) });
  return h3;
}
