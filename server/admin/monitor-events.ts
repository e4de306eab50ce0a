// What the request monitor keeps besides the API's accepted calls (issue 44, point 4): calls refused for their
// credentials (kept for the workspace whose key or id they named), request headers with credentials masked, and
// websocket events (a connection opened with the access decided, closed with its code, an upgrade refused).
// server/http/listener.ts and server/crdt/websocket.ts call these in one line each; the monitor itself
// (monitor.ts) keeps them in the workspace's ring like any call, so filters, the live feed and the cluster's
// sharing see them too.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { CallHeaders } from '../http/dispatch.ts';
import { headerNames } from '../http/dispatch.ts';

export const MASKED = '[redacted]';

/** Header names whose values are credentials (shown masked): the auth tokens, Authorization, cookies. */
function secretHeaders(brand: string): Set<string> {
  const names = headerNames(brand);
  return new Set([names.authToken, names.workspaceAuthToken, 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
}

/**
 * A call's request headers as name/value pairs in the order they came (names in lower case), credentials masked.
 * Reads a fetch `Headers` (the h3 way) or a node request's raw pairs (the node:http way, `raw`).
 */
export function maskedHeaders(brand: string, headers: CallHeaders | Headers | { raw: string[] }): Array<[string, string]> {
  const secret = secretHeaders(brand);
  const out: Array<[string, string]> = [];
  const add = (name: string, value: string) => {
    const lower = name.toLowerCase();
    out.push([lower, secret.has(lower) ? MASKED : value]);
  };
  if ('raw' in headers && Array.isArray(headers.raw)) {
    for (let i = 0; i + 1 < headers.raw.length; i += 2) add(headers.raw[i] as string, headers.raw[i + 1] as string);
  } else if (typeof (headers as Headers).forEach === 'function') {
    (headers as Headers).forEach((value, name) => {
      add(name, value);
    });
  }
  return out;
}

/**
 * The workspace that owns the API key or workspace id a refused call (or websocket) named, if any: the workspace
 * sees attempts on its own credentials; an id nobody owns is kept for nobody.
 */
export async function ownerOf(app: Pick<AppContext, 'storage'>, by: { apiKey?: string | null; workspaceId?: string | null }): Promise<string | undefined> {
  try {
    if (by.apiKey) return (await app.storage.keys.forCredentials(by.apiKey, ''))?.key.workspaceId;
    if (by.workspaceId) return (await app.storage.workspaces.forCredentials(by.workspaceId))?.id;
  } catch {
    // a name no row can have (too long, a NUL on PostgreSQL): nobody's
  }
  return undefined;
}

/** Whether an answer is a refusal of the caller's credentials. */
export const refusedCredentials = (status: number) => status === 401 || status === 403;

/** The room path of a websocket, as the monitor lists it. */
const roomPath = (room: { organizationId: string; documentId: string; editorId: string }) =>
  `/yjs/${encodeURIComponent(room.organizationId)}/${encodeURIComponent(room.documentId)}/${encodeURIComponent(room.editorId)}`;

interface SocketEvent {
  workspaceId: string;
  apiKeyId: string;
  room: { organizationId: string; documentId: string; editorId: string };
  /** The connection's id: its open and close share it (the monitor's request id column). */
  connection: string;
  status: number;
  note: string;
}

function keepSocketEvent(app: Pick<AppContext, 'monitor'>, event: SocketEvent) {
  app.monitor.record({
    at: Date.now(),
    method: 'WS',
    path: roomPath(event.room),
    status: event.status,
    durationMs: 0,
    caller: event.apiKeyId,
    requestId: event.connection,
    workspaceId: event.workspaceId,
    kind: 'ws',
    note: event.note.slice(0, 300),
  });
}

/**
 * A websocket opened: records the access decided (who, read-write or read-only) and answers the function to call
 * when it closes (its code and reason), which records the close with the time it was open.
 */
export function socketOpened(
  app: Pick<AppContext, 'monitor'>,
  scope: { workspaceId: string; apiKeyId: string },
  room: SocketEvent['room'],
  who: { userId: string | null; readOnly: boolean; ticket?: boolean },
): (code: number, reason: string) => void {
  const connection = randomUUID();
  const opened = performance.now();
  const by = who.ticket ? 'the admin UI (ticket)' : who.userId !== null ? `user ${who.userId}` : `API key ${scope.apiKeyId} (its auth token)`;
  const base = { workspaceId: scope.workspaceId, apiKeyId: scope.apiKeyId, room, connection };
  keepSocketEvent(app, { ...base, status: 101, note: `connected: ${by}, ${who.readOnly ? 'read-only' : 'read-write'}` });
  return (code, reason) => {
    const seconds = Math.round((performance.now() - opened) / 100) / 10;
    keepSocketEvent(app, { ...base, status: code, note: `closed ${code}${reason ? ` ${reason}` : ''}: ${by}, after ${seconds} s` });
  };
}

/** A websocket upgrade refused for its credentials or access: kept for the workspace of the key it named. */
export function socketRefused(app: Pick<AppContext, 'monitor' | 'storage'>, apiKey: string | null, room: SocketEvent['room'], status: number, reason: string) {
  if (!apiKey) return;
  void ownerOf(app, { apiKey }).then((workspaceId) => {
    if (workspaceId === undefined) return;
    keepSocketEvent(app, { workspaceId, apiKeyId: apiKey, room, connection: randomUUID(), status, note: `refused ${status}: ${reason}` });
  });
}
