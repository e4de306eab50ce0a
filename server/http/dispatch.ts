import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { verifiedApiKey, verifiedWorkspace } from './credentials.ts';
import type { VerifiedKey } from '../services/apikeys.ts';
import type { VerifiedWorkspace } from '../services/workspaces.ts';
import { ApiError, invalid, refusedByContention, resourceExhausted, StorageConflict, StorageUnavailable } from '../errors.ts';
import { errorBody, httpStatusOf, INTERNAL_ERROR } from './errors.ts';
import type { AnyOperation, ApiKeyRequestContext, RequestContext, WorkspaceRequestContext } from './operation.ts';
import { parseInput, refuseUnstorableText } from './validation.ts';

/** The request headers a call is read from: the Fetch API's `Headers`, or node:http's behind the same `get`. */
export interface CallHeaders {
  get(name: string): string | null;
}

export interface IncomingCall {
  method: string;
  path: string;
  headers: CallHeaders;
  clientIp: string;
  /** Reads the body, failing with INVALID_ARGUMENT past `limit` bytes. */
  readBody(limit: number): Promise<string>;
  /** The workspace the call's credentials belong to, once they are verified: whose request monitor keeps it. */
  workspaceId?: string | undefined;
  /** The body was scanned (JsonScan) while it arrived: parseData need not scan it again. */
  bodyScanned?: boolean;
}

export interface CallOutcome {
  status: number;
  body: object;
  requestId: string;
  /** The request body was refused before it was read to the end. */
  bodyUnread?: boolean;
  /** The answer as UTF-8 JSON when it is already serialized (kept: the response cache's, a constant answer); else `body` is. */
  json?: Buffer;
}

/** The callable-function rules' answer (reference §1.2), with the reason after it so that the problem is named. */
const badRequest = (reason: string) => invalid(`Bad Request: ${reason}`);

export interface HeaderNames {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

// Built once per brand: every call reads them.
const namesByBrand = new Map<string, HeaderNames>();

export function headerNames(brand: string): HeaderNames {
  let names = namesByBrand.get(brand);
  if (names === undefined) {
    names = Object.freeze({
      workspaceId: `x-${brand}-workspace-id`,
      workspaceAuthToken: `x-${brand}-workspace-auth-token`,
      apiKey: `x-${brand}-api-key`,
      authToken: `x-${brand}-auth-token`,
    });
    namesByBrand.set(brand, names);
  }
  return names;
}

/** The media type of a Content-Type header, lower-cased, without its parameters. */
function mediaType(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (header === 'application/json') return header;
  return header.split(';')[0]?.trim().toLowerCase();
}

/**
 * The callable-function rules a call must pass before its body is read (reference §1.2): POST, a JSON content
 * type, and a declared size within the limit. Throws the rule's INVALID_ARGUMENT.
 */
export function checkCall(call: Pick<IncomingCall, 'method' | 'headers'>, maxBytes: number) {
  if (call.method !== 'POST') throw badRequest(`operations accept POST only, not ${call.method}.`);
  const contentType = mediaType(call.headers.get('content-type'));
  if (contentType !== 'application/json') throw badRequest('Content-Type must be application/json.');
  const declared = Number(call.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
}

/** The `data` of a callable request's body text: JSON, then its shape (one `data` key, bounded nesting). */
export function parseData(text: string, scanned = false): unknown {
  // JSON.parse of millions of nested brackets takes seconds (2 s for a 10 MB body), of millions of small values
  // most of one (0.7 s for 8 MB of `{},`): a long body is scanned first
  if (!scanned) checkLongJson(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object.');
  if (depthExceeds(body, 1)) throw badRequest(`the body is nested more than ${MAX_DEPTH} levels deep.`);
  if (!('data' in body)) throw badRequest('the body must have a "data" key.');
  const extra = otherKeys(body);
  if (extra.length > 0) throw badRequest(`the body may have only the "data" key; found ${extra.map((k) => JSON.stringify(k)).join(', ')}.`);
  const data = (body as { data: unknown }).data;
  // `"data": null` counts as present (reference §1.2); it means "no parameters".
  return data === null ? {} : data;
}

/**
 * Refuses JSON text too deep or of too many values to parse without holding the server (scanJson), before
 * JSON.parse: the check every body takes before it is parsed, the API's and the admin UI's alike. Short text is
 * not scanned (it parses in milliseconds whatever it holds).
 */
export function checkLongJson(text: string) {
  if (text.length <= SCAN_NESTING_FROM) return;
  const scan = scanJson(text, MAX_DEPTH, MAX_VALUES);
  if (scan) throw scanRefusal(scan);
}

/** checkLongJson's refusal of a scan's finding. */
export function scanRefusal(scan: 'deep' | 'many') {
  return scan === 'deep'
    ? badRequest(`the body is nested more than ${MAX_DEPTH} levels deep.`)
    : badRequest(`the body holds more than ${MAX_VALUES.toLocaleString('en-US')} JSON values.`);
}

/**
 * The pre-parse scan (scanJson) over a body's bytes, fed a chunk at a time as they arrive on node:http's way in, or
 * all at once: a long body is judged while
 * it is read, without a turn that scans it whole, and one of too many values is refused once it has sent them,
 * not after all of its megabytes are read and decoded. JSON's brackets, commas, quotes and backslashes are ASCII,
 * and no byte of a multi-byte UTF-8 character is, so the bytes are scanned as they are.
 */
export class JsonScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;

  constructor(
    private readonly maxDepth = MAX_DEPTH,
    private readonly maxValues = MAX_VALUES,
  ) {}

  feed(bytes: Uint8Array): 'deep' | 'many' | null {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
      } else if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) {
        if (++this.depth > this.maxDepth) return 'deep';
        if (++this.values > this.maxValues) return 'many';
      } else if (c === 125 || c === 93) this.depth--;
      else if (c === 44 && ++this.values > this.maxValues) return 'many';
    }
    return null;
  }
}

/** From this many bytes on, a body is scanned before it is parsed (SCAN_NESTING_FROM, in bytes). */
export const SCAN_BYTES_FROM = 256 * 1024;

export class BodyTooLarge extends ApiError {
  constructor(maxBytes: number) {
    super('INVALID_ARGUMENT', `Bad Request: the body exceeds the limit of ${maxBytes} bytes.`);
  }
}
/** Deeper JSON than any operation takes; refusing it up front keeps recursive serializers off a huge stack. */
const MAX_DEPTH = 64;

/**
 * Bodies longer than this are scanned for their nesting before JSON.parse; a shorter one nested to the brim
 * (128 K levels) parses in ~20 ms, and the scan would cost a large users/add a few percent.
 */
const SCAN_NESTING_FROM = 256 * 1024;

/**
 * The most values (objects, arrays and the items and members in them) a body may hold: what the largest call takes
 * (notifications/add to 10,000 users, each a small object: ~50,000) with room to spare, and what JSON.parse and the
 * checks after it get through in tens of milliseconds, where 10 MB of small values held the server for 0.7 s
 * before anything looked at them (issue 42).
 */
const MAX_VALUES = 250_000;

/**
 * Whether JSON text opens more than `max` objects or arrays inside one another, as depthExceeds counts them on the
 * parsed value (the outer object is level 1); brackets inside strings do not count.
 */
export const nestedDeeperThan = (text: string, max: number) => scanJson(text, max, Number.POSITIVE_INFINITY) === 'deep';

/**
 * One pass over JSON text before it is parsed: `deep` when it opens more than `maxDepth` objects or arrays inside
 * one another (as depthExceeds counts them on the parsed value: the outer object is level 1), `many` when it holds
 * more than about `maxValues` values (each object, array and comma counts one: an object's members and an array's
 * items, less one each); brackets and commas inside strings do not count. JsonScan over the text's bytes: the one
 * scanner, whether a body is judged whole (here) or as it arrives.
 */
export const scanJson = (text: string, maxDepth: number, maxValues: number) => new JsonScan(maxDepth, maxValues).feed(Buffer.from(text));

/** Whether an object or array at `depth` has objects below it past MAX_DEPTH; recursion stops at the limit. */
function depthExceeds(value: object, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (child !== null && typeof child === 'object' && depthExceeds(child, depth + 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object' && depthExceeds(child, depth + 1)) return true;
  }
  return false;
}

/** The body's keys other than "data" (none, on every valid call: no array is built then). */
function otherKeys(body: object): string[] {
  let extra: string[] | undefined;
  for (const key in body) if (key !== 'data') (extra ??= []).push(key);
  return extra ?? [];
}

export const tooLarge = (maxBytes: number) => new BodyTooLarge(maxBytes);

/**
 * The call's request context once its credentials are verified: synchronously for credentials the cache knows
 * (the common case: no promise turn), else after one read.
 */
export function authenticate(
  app: AppContext,
  op: AnyOperation,
  headers: CallHeaders,
  requestId: string,
  clientIp: string,
): RequestContext | Promise<RequestContext> {
  const names = headerNames(app.config.headerBrand);
  if (op.auth === 'workspace') {
    const workspaceId = headers.get(names.workspaceId);
    if (!workspaceId) throw invalid('Workspace ID not found in headers.');
    const token = headers.get(names.workspaceAuthToken);
    if (!token) throw invalid('Auth Token not found in headers.');
    const verified = verifiedWorkspace(app, workspaceId, token);
    const context = ({ workspace, scope }: VerifiedWorkspace): RequestContext => {
      if (!app.limiter.hit(`workspace-ops:${workspace.id}`, app.config.rateLimits.workspaceOperations)) {
        throw resourceExhausted('Rate limit exceeded. Try again after 1 minute.');
      }
      return { app, requestId, clientIp, workspace, workspaceScope: scope } as RequestContext;
    };
    return verified instanceof Promise ? verified.then(context) : context(verified);
  }
  if (op.auth === 'apiKey') {
    // The hosted wording for these is unpublished (reference §6.1): name the header itself.
    const apiKeyId = headers.get(names.apiKey);
    if (!apiKeyId) throw invalid(`API key not found in headers (${names.apiKey}).`);
    const token = headers.get(names.authToken);
    if (!token) throw invalid(`Auth Token not found in headers (${names.authToken}).`);
    const verified = verifiedApiKey(app, apiKeyId, token);
    const context = ({ key, scope }: VerifiedKey) => ({ app, requestId, clientIp, apiKey: key, scope }) as RequestContext;
    return verified instanceof Promise ? verified.then(context) : context(verified);
  }
  return { app, requestId, clientIp };
}

/**
 * Runs one operation call end to end: request rules, authentication, input validation, the handler, and the
 * envelope. Every outcome is an envelope: ApiErrors map through the status table, anything else is logged
 * with the request id and answered as INTERNAL without detail.
 */
export async function dispatch(app: AppContext, op: AnyOperation, call: IncomingCall): Promise<CallOutcome> {
  const requestId = randomUUID();
  const limit = bodyLimit(app.config, op);
  let verified: RequestContext | undefined;
  try {
    checkCall(call, limit);
    if (verifiesFirst(app.config, op, call.headers)) verified = await authenticate(app, op, call.headers, requestId, call.clientIp);
  } catch (error) {
    // refused before a byte of the body was read: the rest is dropped, unparsed (dropRestOfBody)
    return { ...failure(app, op, requestId, error), bodyUnread: true };
  }
  let text: string;
  try {
    text = await call.readBody(limit);
  } catch (error) {
    return failure(app, op, requestId, error);
  }
  return runCall(app, op, call, text, requestId, verified);
}

/**
 * The most body a call may send: an operation anyone may call (ping, workspace/create, login links) reads no more
 * than `preAuthBodyBytes`, none of them needing more; the others the whole `maxBodyBytes`.
 */
export const bodyLimit = (config: AppContext['config'], op: AnyOperation) =>
  op.auth === 'public' ? Math.min(config.preAuthBodyBytes, config.maxBodyBytes) : config.maxBodyBytes;

/**
 * Whether a call's credentials are verified before its body is read: when it names a body larger than
 * `preAuthBodyBytes`, or none (chunked), so that nobody unknown makes the server read and parse megabytes (issue
 * 42: 8 MB of JSON without credentials held every other client 1 to 3 s). A short body is read first, as before,
 * so that a malformed call is told what is wrong with it before whether its credentials are.
 */
export function verifiesFirst(config: AppContext['config'], op: AnyOperation, headers: CallHeaders): boolean {
  if (op.auth === 'public') return false;
  const length = headers.get('content-length');
  return length === null || !(Number(length) <= config.preAuthBodyBytes);
}

/**
 * What follows reading the body: its data, authentication, validation, the handler and the envelope. Returns
 * the outcome itself when the handler answers synchronously (no promise turn on the hot path), else a promise.
 */
export function runCall(
  app: AppContext,
  op: AnyOperation,
  call: Pick<IncomingCall, 'headers' | 'clientIp' | 'workspaceId' | 'bodyScanned'>,
  text: string,
  requestId: string,
  verified?: RequestContext,
): CallOutcome | Promise<CallOutcome> {
  try {
    const data = parseData(text, call.bodyScanned);
    const ctx = verified ?? authenticate(app, op, call.headers, requestId, call.clientIp);
    if (ctx instanceof Promise) {
      return ctx.then(
        (verified) => authenticatedCall(app, op, call, verified, data, text, requestId),
        (error: unknown) => failure(app, op, requestId, error),
      );
    }
    return authenticatedCall(app, op, call, ctx, data, text, requestId);
  } catch (error) {
    return failure(app, op, requestId, error);
  }
}

/** runCall once the caller is known: validation, the handler (or a kept answer) and the envelope. */
function authenticatedCall(
  app: AppContext,
  op: AnyOperation,
  call: Pick<IncomingCall, 'workspaceId'>,
  ctx: RequestContext,
  data: unknown,
  text: string,
  requestId: string,
): CallOutcome | Promise<CallOutcome> {
  try {
    call.workspaceId = (ctx as Partial<WorkspaceRequestContext>).workspace?.id ?? (ctx as Partial<ApiKeyRequestContext>).apiKey?.workspaceId;
    refuseUnstorableText(data, text);
    if (op.cache === 'read' && app.responses.enabled) return cachedCall(app, op, ctx, data, text, requestId);
    const input = parseInput(op.input, data, op.missingMessages);
    if (op.cache === 'constant') return constantCall(app, op, ctx, input, requestId);
    const result: unknown = op.handler(input, ctx as never);
    if (result instanceof Promise) return settled(app, op, requestId, result);
    return success(op, result, requestId);
  } catch (error) {
    return failure(app, op, requestId, error);
  }
}

/**
 * A read operation's call through the response cache: the answer kept for the same caller and body while the
 * database is unchanged, or computed and kept, unless a write landed while it was computed (the stamp read
 * before computing then no longer matches, and `set` keeps nothing).
 */
function cachedCall(
  app: AppContext,
  op: AnyOperation,
  ctx: RequestContext,
  data: unknown,
  text: string,
  requestId: string,
): CallOutcome | Promise<CallOutcome> {
  const caller = (ctx as Partial<ApiKeyRequestContext>).apiKey?.id ?? (ctx as Partial<WorkspaceRequestContext>).workspace?.id ?? '';
  // the exact body text: equal texts are equal requests (a differently spaced one is merely another entry)
  const key = `${op.path}\u0000${caller}\u0000${text}`;
  const kept = app.responses.get(key);
  if (kept !== undefined) return { status: 200, body: KEPT, json: kept, requestId };
  const stamp = app.responses.stamp();
  const input = parseInput(op.input, data, op.missingMessages);
  const result: unknown = op.handler(input, ctx as never);
  const keep = (value: unknown) => {
    const outcome = success(op, value, requestId);
    // kept as UTF-8 bytes: a kept answer is then sent without encoding (or measuring) a long string again
    outcome.json = Buffer.from(JSON.stringify(outcome.body));
    app.responses.set(key, outcome.json, stamp);
    return outcome;
  };
  if (result instanceof Promise) return result.then(keep, (error: unknown) => failure(app, op, requestId, error));
  return keep(result);
}

/** The answers of `cache: 'constant'` operations, serialized at their first call, per app. */
const constantAnswers = new WeakMap<AppContext, Map<AnyOperation, Buffer>>();

/**
 * A `cache: 'constant'` operation's call, its input already valid: the answer serialized at the first call
 * (ping's costs as much to serialize as the rest of its call), or computed and kept.
 */
function constantCall(app: AppContext, op: AnyOperation, ctx: RequestContext, input: unknown, requestId: string): CallOutcome | Promise<CallOutcome> {
  let answers = constantAnswers.get(app);
  const kept = answers?.get(op);
  if (kept !== undefined) return { status: 200, body: KEPT, json: kept, requestId };
  const result: unknown = op.handler(input, ctx as never);
  if (result instanceof Promise) return settled(app, op, requestId, result);
  const outcome = success(op, result, requestId);
  outcome.json = Buffer.from(JSON.stringify(outcome.body));
  if (answers === undefined) constantAnswers.set(app, (answers = new Map()));
  answers.set(op, outcome.json);
  return outcome;
}

/** The outcome of a handler that answered with a promise. */
function settled(app: AppContext, op: AnyOperation, requestId: string, result: Promise<unknown>): Promise<CallOutcome> {
  return result.then(
    (value: unknown) => success(op, value, requestId),
    (error: unknown) => failure(app, op, requestId, error),
  );
}

/** The body of an outcome answered with kept JSON text (`json`), which is what is sent. */
const KEPT = Object.freeze({});

/** An outcome's answer as an object, whether it was computed or kept as text (response cache, constant answer). */
export function answerOf(outcome: CallOutcome): object {
  return outcome.json !== undefined ? (JSON.parse(outcome.json.toString('utf8')) as object) : outcome.body;
}

function success(op: AnyOperation, result: unknown, requestId: string): CallOutcome {
  const body = op.envelope === 'classic' ? { result: { status: 'success', ...(result as object) } } : { result: result ?? null };
  return { status: 200, body, requestId };
}

export function failure(app: AppContext, op: AnyOperation, requestId: string, error: unknown): CallOutcome {
  // a unique key another request took first, that no service turned into its own answer (issue 43): logged, since
  // a create that may race should not get here, and answered as the conflict it is
  if (error instanceof StorageConflict) {
    app.log.warn('a write met a unique key taken by another', { requestId, path: op.path, error: String(error.cause) });
    error = new ApiError('ALREADY_EXISTS', 'The record was created by another request at the same time; read it or try again.');
  }
  if (error instanceof StorageUnavailable) {
    app.log.warn('the database connection was lost during a call', { requestId, path: op.path, error: String(error.cause) });
    error = new ApiError('UNAVAILABLE', 'The connection to the database was lost during this call; try again in a few seconds.');
  }
  // PostgreSQL refused the unit every time the engine ran it (its attempts spent): contention, not a fault
  if (refusedByContention(error)) {
    app.log.warn('a unit of work was refused by concurrent changes every time it ran', { requestId, path: op.path, error: String(error) });
    error = new ApiError('ABORTED', 'Other calls kept changing the data this call changes; try again.');
  }
  if (error instanceof ApiError) {
    return { status: httpStatusOf(error.status), body: errorBody(error), requestId, bodyUnread: error instanceof BodyTooLarge };
  }
  app.log.error('operation failed', { requestId, path: op.path, error: error instanceof Error ? error.stack : String(error) });
  return { status: 500, body: INTERNAL_ERROR, requestId };
}
