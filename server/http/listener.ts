import { randomUUID } from 'node:crypto';
// The operations' own way in: a POST to an operation's exact path is served straight on node:http, without
// h3's web Request/Response adapters (which cost more than the rest of a small call together); every other
// request (other methods, the UI, admin routes, unusual URLs) goes through h3 as before. Both ways run the
// same steps of dispatch.ts (checkCall, runCall) and recordCall, so the rules, envelope and monitor record are
// the same whichever way a call came.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import {
  authenticate,
  bodyLimit,
  checkCall,
  dispatch,
  JsonScan,
  SCAN_BYTES_FROM,
  scanRefusal,
  failure,
  headerNames,
  runCall,
  tooLarge,
  verifiesFirst,
  type CallHeaders,
  type CallOutcome,
  type IncomingCall,
} from './dispatch.ts';
import { dropBytes, dropRestOfBody } from './body.ts';
import { ApiError } from '../errors.ts';
import { INTERNAL_ERROR } from './errors.ts';
import { hostRefusal, rawHost } from './host-check.ts';
import { redactAnswer, redactRequest } from './redact.ts';
import { maskedHeaders, ownerOf, refusedCredentials } from '../admin/monitor-events.ts';
import type { AnyOperation, RequestContext } from './operation.ts';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The content type h3 gives a JSON answer; kept byte for byte so that both ways answer alike. */
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

/**
 * A node request's headers with the Fetch API's `get` (lower-case names only, which is all the API asks), read
 * from `rawHeaders`: Node builds `req.headers` lazily, and building it cost more than the few lookups a call
 * makes. Repeated headers are joined with ", ", as the Fetch API (what h3 saw) joins them.
 */
class NodeHeaders implements CallHeaders {
  constructor(readonly raw: string[]) {}

  get(name: string): string | null {
    const raw = this.raw;
    let found: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i] as string;
      if (key.length !== name.length || (key !== name && !sameLowerCase(key, name))) continue;
      found = found === null ? (raw[i + 1] as string) : `${found}, ${raw[i + 1] as string}`;
    }
    return found;
  }
}

/** Whether `key` is `name` (lower case) in any case, without allocating a lower-cased copy. */
function sameLowerCase(key: string, name: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== name.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Runs a call and records it (log line and request monitor). Returns the outcome and its body as JSON text,
 * serialized once for the answer and, while the monitor is watched, for the monitor too.
 */
export async function serveCall(app: AppContext, op: AnyOperation, call: IncomingCall, pathname: string, requestText: () => string | undefined) {
  const started = performance.now();
  const outcome = await dispatch(app, op, call);
  return { outcome, json: recordCall(app, op, call, pathname, started, outcome, requestText) };
}

/**
 * Logs and records a finished call in its workspace's request monitor (calls no workspace's credentials
 * verified are kept for nobody); returns the answer's JSON text.
 */
function recordCall(
  app: AppContext,
  op: AnyOperation,
  call: Pick<IncomingCall, 'method' | 'headers' | 'workspaceId'>,
  pathname: string,
  started: number,
  outcome: CallOutcome,
  requestText: () => string | undefined,
) {
  const json: string | Buffer = outcome.json ?? JSON.stringify(outcome.body);
  if (app.log.enabled('debug')) app.log.debug('call', { requestId: outcome.requestId, path: op.path, status: outcome.status });
  app.monitor.count({ path: op.path, status: outcome.status, durationMs: performance.now() - started, at: Date.now() });
  const names = headerNames(app.config.headerBrand);
  const caller = call.headers.get(names.apiKey) ?? call.headers.get(names.workspaceId);
  const keep = (workspaceId: string) =>
    app.monitor.record(
      {
        at: Date.now(),
        method: call.method,
        path: pathname,
        status: outcome.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        caller,
        requestId: outcome.requestId,
        workspaceId,
      },
      () => ({
        request: redactRequest(op, requestText() ?? ''),
        response: redactAnswer(op, typeof json === 'string' ? json : json.toString('utf8')),
        headers: maskedHeaders(app.config.headerBrand, call.headers),
        responseHeaders: pairsOf(answerHead(outcome, json)),
      }),
    );
  if (call.workspaceId !== undefined) keep(call.workspaceId);
  // refused for its credentials: kept for the workspace whose key or id it named (admin/monitor-events.ts)
  else if (refusedCredentials(outcome.status) && op.auth !== 'public')
    void ownerOf(app, { apiKey: call.headers.get(names.apiKey), workspaceId: call.headers.get(names.workspaceId) }).then((id) => id && keep(id));
  return json;
}

/** The headers of an operation's answer, as writeHead takes them (name, value, name, value…); the monitor keeps them too. */
function answerHead(outcome: CallOutcome, json: string | Buffer): string[] {
  const length = typeof json === 'string' ? Buffer.byteLength(json) : json.length;
  const head = ['content-type', JSON_CONTENT_TYPE, 'x-request-id', outcome.requestId, 'content-length', String(length)];
  // after a refused oversized body the connection closes, once the rest is dropped (dropRestOfBody)
  if (outcome.bodyUnread) head.unshift('connection', 'close');
  return head;
}

const pairsOf = (head: string[]): Array<[string, string]> => {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < head.length; i += 2) pairs.push([head[i] as string, head[i + 1] as string]);
  return pairs;
};

function writeAnswer(res: ServerResponse, outcome: CallOutcome, json: string | Buffer) {
  // An empty reason phrase, as the h3 way writes it.
  res.writeHead(outcome.status, '', answerHead(outcome, json));
  res.end(json);
}

const CALL = Symbol('hearth.call');
type CallRequest = IncomingMessage & { [CALL]?: NodeCall };
const abortedRequest = () => new ApiError('INVALID_ARGUMENT', 'Bad Request: the request was aborted before its body was complete.');

/**
 * One operation call over node:http, from the request to the answer, without promise turns unless the handler
 * itself returns a promise. The body is read with plain stream events; the listeners are module functions that
 * find the call on the request (no closure per request).
 */
class NodeCall {
  readonly method = 'POST';
  readonly headers: NodeHeaders;
  readonly clientIp: string;
  readonly started = performance.now();
  readonly requestId = randomUUID();
  workspaceId: string | undefined = undefined;
  text: string | undefined;
  /** Whether the body was scanned as it arrived (a long one): runCall does not scan it again. */
  bodyScanned = false;
  private scan: JsonScan | undefined;
  /** The most body this call reads (bodyLimit). */
  private readonly limit: number;
  /** The caller, when its credentials were verified before the body was read (verifiesFirst). */
  private verified: RequestContext | undefined;
  private first: Buffer | undefined;
  private more: Buffer[] | undefined;
  private size = 0;
  private settled = false;

  constructor(
    private readonly app: AppContext,
    private readonly op: AnyOperation,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly pathname: string,
  ) {
    this.headers = new NodeHeaders(req.rawHeaders);
    this.clientIp = req.socket.remoteAddress ?? 'unknown';
    this.limit = bodyLimit(app.config, op);
  }

  start() {
    try {
      checkCall(this, this.limit);
    } catch (error) {
      this.answer(failure(this.app, this.op, this.requestId, error));
      return;
    }
    const req = this.req as CallRequest;
    req[CALL] = this;
    // A client gone mid-upload is a bad request, not a server failure; the request emits 'error' then.
    req.on('error', onAbort);
    if (!verifiesFirst(this.app.config, this.op, this.headers)) {
      this.read();
      return;
    }
    // a long or chunked body: its caller is known before a byte of it is read (issue 42)
    try {
      const verified = authenticate(this.app, this.op, this.headers, this.requestId, this.clientIp);
      if (verified instanceof Promise)
        verified.then(
          (ctx) => this.readAs(ctx),
          (error: unknown) => this.refuseUnread(error),
        );
      else this.readAs(verified);
    } catch (error) {
      this.refuseUnread(error);
    }
  }

  private readAs(ctx: RequestContext) {
    if (this.settled) return;
    this.verified = ctx;
    this.read();
  }

  private read() {
    const req = this.req;
    // `on`, not `once` (which wraps each listener in a new bound function): the call runs and answers once anyway.
    req.on('data', onData);
    req.on('end', onEnd);
  }

  /** Answers a call refused before its body was read; the rest of the body is dropped unparsed. */
  private refuseUnread(error: unknown) {
    if (this.settled) return;
    this.answer({ ...failure(this.app, this.op, this.requestId, error), bodyUnread: true });
  }

  chunk(chunk: Buffer) {
    if (this.settled) return;
    this.size += chunk.byteLength;
    if (this.size > this.limit) {
      this.req.off('data', onData);
      this.req.pause();
      this.answer(failure(this.app, this.op, this.requestId, tooLarge(this.limit)));
      return;
    }
    if (this.first === undefined) this.first = chunk;
    else (this.more ??= [this.first]).push(chunk);
    // a long body is scanned as it comes: what came before the limit at once, then each chunk
    if (this.size > SCAN_BYTES_FROM) {
      let found: 'deep' | 'many' | null = null;
      if (this.scan === undefined) {
        this.scan = new JsonScan();
        this.bodyScanned = true;
        for (const piece of this.more ?? [chunk]) if ((found = this.scan.feed(piece))) break;
      } else found = this.scan.feed(chunk);
      if (found) {
        this.req.off('data', onData);
        this.req.pause();
        this.first = this.more = undefined;
        this.answer({ ...failure(this.app, this.op, this.requestId, scanRefusal(found)), bodyUnread: true });
      }
    }
  }

  end() {
    if (this.settled) return;
    this.text = this.more ? Buffer.concat(this.more, this.size).toString('utf8') : this.first ? this.first.toString('utf8') : '';
    this.first = this.more = undefined;
    const outcome = runCall(this.app, this.op, this, this.text, this.requestId, this.verified);
    if (outcome instanceof Promise)
      outcome.then(
        (o) => this.answer(o),
        (error: unknown) => failed(this.app, this.res, error),
      );
    else this.answer(outcome);
  }

  abort() {
    if (!this.settled) this.answer(failure(this.app, this.op, this.requestId, abortedRequest()));
  }

  answer(outcome: CallOutcome) {
    this.settled = true;
    try {
      if (outcome.bodyUnread) dropRestOfBody(this.req, dropBytes(this.app.config.maxBodyBytes));
      const json = recordCall(this.app, this.op, this, this.pathname, this.started, outcome, () => this.text);
      writeAnswer(this.res, outcome, json);
    } catch (error) {
      failed(this.app, this.res, error);
    }
  }
}

function onData(this: CallRequest, chunk: Buffer) {
  this[CALL]?.chunk(chunk);
}
function onEnd(this: CallRequest) {
  this[CALL]?.end();
}
function onAbort(this: CallRequest) {
  this[CALL]?.abort();
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

/** A request addressed to a name Hearth does not answer to (host-check.ts): 403, naming the setting. */
function refuseHost(res: ServerResponse, host: string) {
  const json = JSON.stringify({ error: { status: 'PERMISSION_DENIED', message: hostRefusal(host) } });
  res.writeHead(403, '', ['content-type', JSON_CONTENT_TYPE, 'content-length', String(Buffer.byteLength(json)), 'connection', 'close']);
  res.end(json);
}

/** The node:http listener: operation POSTs by an exact-path Map, everything else to `fallback` (h3). */
export function createRequestListener(app: AppContext, operations: readonly AnyOperation[], fallback: NodeListener): NodeListener {
  const routes = new Map<string, AnyOperation>();
  for (const op of operations) for (const path of [op.path, ...(op.aliases ?? [])]) routes.set(path, op);
  return (req, res) => {
    const host = rawHost(req.rawHeaders);
    if (!app.hostAllowed(host)) {
      refuseHost(res, host as string);
      return;
    }
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    const op = req.method === 'POST' ? routes.get(pathname) : undefined;
    if (op === undefined) {
      fallback(req, res);
      return;
    }
    try {
      new NodeCall(app, op, req, res, pathname).start();
    } catch (error) {
      failed(app, res, error);
    }
  };
}
