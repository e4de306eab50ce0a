// The operations' own way in: a POST to an operation's exact path is served straight on node:http, without
// h3's web Request/Response adapters (which cost more than the rest of a small call together); every other
// request (other methods, the UI, admin routes, unusual URLs) goes through h3 as before. Both ways run the
// same `serveCall`, so the rules, envelope and monitor record are the same whichever way a call came.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { readNodeBody } from './body.ts';
import { dispatch, headerNames, type CallHeaders, type CallOutcome, type IncomingCall } from './dispatch.ts';
import { INTERNAL_ERROR } from './errors.ts';
import type { AnyOperation } from './operation.ts';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The content type h3 gives a JSON answer; kept byte for byte so that both ways answer alike. */
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

/**
 * Headers that Node keeps once when repeated but the Fetch API joins with ", " (what h3 saw). Only these need
 * a look at the raw headers; every other repeated header is already joined by Node.
 */
const NON_JOINED = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent']);

/** A node request's headers with the Fetch API's `get` (lower-case names only, which is all the API asks). */
class NodeHeaders implements CallHeaders {
  constructor(private readonly req: IncomingMessage) {}

  get(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    if (typeof value !== 'string') return value.join(', ');
    return NON_JOINED.has(name) ? joinedRaw(this.req.rawHeaders, name, value) : value;
  }
}

function joinedRaw(raw: string[], name: string, first: string): string {
  let joined: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).length !== name.length || (raw[i] as string).toLowerCase() !== name) continue;
    joined = joined === undefined ? (raw[i + 1] as string) : `${joined}, ${raw[i + 1] as string}`;
  }
  return joined ?? first;
}

/** One call as it came over node:http; keeps the body text for the monitor. */
class NodeCall implements IncomingCall {
  readonly method = 'POST';
  readonly headers: NodeHeaders;
  readonly clientIp: string;
  text: string | undefined;

  constructor(
    private readonly req: IncomingMessage,
    readonly path: string,
  ) {
    this.headers = new NodeHeaders(req);
    this.clientIp = req.socket.remoteAddress ?? 'unknown';
  }

  async readBody(limit: number): Promise<string> {
    this.text = await readNodeBody(this.req, limit);
    return this.text;
  }
}

/**
 * Runs a call and records it (log line and request monitor). Returns the outcome and its body as JSON text,
 * serialized once for the answer and, while the monitor is watched, for the monitor too.
 */
export async function serveCall(app: AppContext, op: AnyOperation, call: IncomingCall, pathname: string, requestText: () => string | undefined) {
  const started = performance.now();
  const outcome = await dispatch(app, op, call);
  const json = JSON.stringify(outcome.body);
  app.log.debug('call', { requestId: outcome.requestId, path: op.path, status: outcome.status });
  const names = headerNames(app.config.headerBrand);
  app.monitor.record(
    {
      at: Date.now(),
      method: call.method,
      path: pathname,
      status: outcome.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      caller: call.headers.get(names.apiKey) ?? call.headers.get(names.workspaceId),
      requestId: outcome.requestId,
    },
    () => ({ request: requestText() ?? '', response: json }),
  );
  return { outcome, json };
}

function writeAnswer(res: ServerResponse, outcome: CallOutcome, json: string) {
  const head = ['content-type', JSON_CONTENT_TYPE, 'x-request-id', outcome.requestId, 'content-length', String(Buffer.byteLength(json))];
  // A rejected oversized body is left unread; closing the connection is cheaper than draining it.
  if (outcome.bodyUnread) head.unshift('connection', 'close');
  // An empty reason phrase, as the h3 way writes it.
  res.writeHead(outcome.status, '', head);
  res.end(json);
}

async function serveNode(app: AppContext, op: AnyOperation, req: IncomingMessage, res: ServerResponse, pathname: string) {
  const call = new NodeCall(req, op.path);
  const { outcome, json } = await serveCall(app, op, call, pathname, () => call.text);
  writeAnswer(res, outcome, json);
}

/** What a failure outside `dispatch` (which answers every error itself) gets: the INTERNAL envelope. */
function failed(app: AppContext, res: ServerResponse, error: unknown) {
  app.log.error('answer failed', { error: error instanceof Error ? error.stack : String(error) });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const json = JSON.stringify(INTERNAL_ERROR);
  res.writeHead(500, '', ['content-type', JSON_CONTENT_TYPE, 'content-length', String(Buffer.byteLength(json))]);
  res.end(json);
}

/** The node:http listener: operation POSTs by an exact-path Map, everything else to `fallback` (h3). */
export function createRequestListener(app: AppContext, operations: readonly AnyOperation[], fallback: NodeListener): NodeListener {
  const routes = new Map<string, AnyOperation>();
  for (const op of operations) for (const path of [op.path, ...(op.aliases ?? [])]) routes.set(path, op);
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    const op = req.method === 'POST' ? routes.get(pathname) : undefined;
    if (op === undefined) {
      fallback(req, res);
      return;
    }
    serveNode(app, op, req, res, pathname).catch((error: unknown) => failed(app, res, error));
  };
}
