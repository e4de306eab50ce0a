import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { authenticateApiKey } from '../services/apikeys.ts';
import { authenticateWorkspace } from '../services/workspaces.ts';
import { ApiError, errorBody, httpStatusOf, INTERNAL_ERROR, invalid, resourceExhausted } from './errors.ts';
import type { AnyOperation, RequestContext } from './operation.ts';
import { parseInput } from './validation.ts';

export interface IncomingCall {
  method: string;
  path: string;
  headers: Headers;
  clientIp: string;
  /** Reads the body, failing with INVALID_ARGUMENT past `limit` bytes. */
  readBody(limit: number): Promise<string>;
}

export interface CallOutcome {
  status: number;
  body: object;
  requestId: string;
  /** The request body was refused before it was read to the end. */
  bodyUnread?: boolean;
}

/** The callable-function rules' answer (reference §1.2), with the reason after it so that the problem is named. */
const badRequest = (reason: string) => invalid(`Bad Request: ${reason}`);

export function headerNames(brand: string) {
  return {
    workspaceId: `x-${brand}-workspace-id`,
    workspaceAuthToken: `x-${brand}-workspace-auth-token`,
    apiKey: `x-${brand}-api-key`,
    authToken: `x-${brand}-auth-token`,
  };
}

/** The `data` of a callable request: method, content type, size, JSON and shape checked, in that order. */
async function readData(call: IncomingCall, maxBytes: number): Promise<unknown> {
  if (call.method !== 'POST') throw badRequest(`operations accept POST only, not ${call.method}.`);
  const contentType = call.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json') throw badRequest('Content-Type must be application/json.');
  const declared = Number(call.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = await call.readBody(maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object.');
  if (depthExceeds(body, MAX_DEPTH)) throw badRequest(`the body is nested more than ${MAX_DEPTH} levels deep.`);
  if (!('data' in body)) throw badRequest('the body must have a "data" key.');
  const extra = Object.keys(body).filter((k) => k !== 'data');
  if (extra.length > 0) throw badRequest(`the body may have only the "data" key; found ${extra.map((k) => JSON.stringify(k)).join(', ')}.`);
  const data = (body as { data: unknown }).data;
  // `"data": null` counts as present (reference §1.2); it means "no parameters".
  return data === null ? {} : data;
}

export class BodyTooLarge extends ApiError {
  constructor(maxBytes: number) {
    super('INVALID_ARGUMENT', `Bad Request: the body exceeds the limit of ${maxBytes} bytes.`);
  }
}
/** Deeper JSON than any operation takes; refusing it up front keeps recursive serializers off a huge stack. */
const MAX_DEPTH = 64;

function depthExceeds(root: object, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

export const tooLarge = (maxBytes: number) => new BodyTooLarge(maxBytes);

function authenticate(app: AppContext, op: AnyOperation, headers: Headers, base: RequestContext): RequestContext {
  const names = headerNames(app.config.headerBrand);
  if (op.auth === 'workspace') {
    const workspaceId = headers.get(names.workspaceId);
    if (!workspaceId) throw invalid('Workspace ID not found in headers.');
    const token = headers.get(names.workspaceAuthToken);
    if (!token) throw invalid('Auth Token not found in headers.');
    const workspace = authenticateWorkspace(app, workspaceId, token);
    if (!app.limiter.hit(`workspace-ops:${workspace.id}`, app.config.rateLimits.workspaceOperations)) {
      throw resourceExhausted('Rate limit exceeded. Try again after 1 minute.');
    }
    return { ...base, workspace } as RequestContext;
  }
  if (op.auth === 'apiKey') {
    // The hosted wording for these is unpublished (reference §6.1): name the header itself.
    const apiKeyId = headers.get(names.apiKey);
    if (!apiKeyId) throw invalid(`API key not found in headers (${names.apiKey}).`);
    const token = headers.get(names.authToken);
    if (!token) throw invalid(`Auth Token not found in headers (${names.authToken}).`);
    return { ...base, apiKey: authenticateApiKey(app, apiKeyId, token) } as RequestContext;
  }
  return base;
}

/**
 * Runs one operation call end to end: request rules, authentication, input validation, the handler, and the
 * envelope. Every outcome is an envelope: ApiErrors map through the status table, anything else is logged
 * with the request id and answered as INTERNAL without detail.
 */
export async function dispatch(app: AppContext, op: AnyOperation, call: IncomingCall): Promise<CallOutcome> {
  const requestId = randomUUID();
  try {
    const data = await readData(call, app.config.maxBodyBytes);
    const ctx = authenticate(app, op, call.headers, { app, requestId, clientIp: call.clientIp });
    const input = parseInput(op.input, data);
    const result = await op.handler(input, ctx as never);
    const body = op.envelope === 'classic' ? { result: { status: 'success', ...(result as object) } } : { result: result ?? null };
    return { status: 200, body, requestId };
  } catch (error) {
    if (error instanceof ApiError) {
      return { status: httpStatusOf(error.status), body: errorBody(error), requestId, bodyUnread: error instanceof BodyTooLarge };
    }
    app.log.error('operation failed', { requestId, path: op.path, error: error instanceof Error ? error.stack : String(error) });
    return { status: 500, body: INTERNAL_ERROR, requestId };
  }
}
