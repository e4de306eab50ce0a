import { currentTime } from '../clock.ts';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import type { AppContext } from '../context.ts';
import type { ConnectionGuard } from '../http/connections.ts';
import type { TenantScope } from '../db/scope.ts';
import { ApiError } from '../errors.ts';
import { hostRefusal } from '../http/host-check.ts';
import { parseInput } from '../http/validation.ts';
import { ApiKeyDisabledError, authenticateApiKey } from '../services/apikeys.ts';
import { originAllowed } from '../services/domains.ts';
import { askPermissionProvider, userDocumentAccess } from '../services/permission-provider.ts';
import { verifyUserToken } from '../services/permissions.ts';
import { id } from '../../shared/schemas/access.ts';
import { CRDT_DATA_TYPES, DEFAULT_CONTENT_KEY } from '../../shared/schemas/crdt.ts';
import { ownedAwarenessUpdate } from './awareness-owners.ts';
import { INFER_KEY, INFER_TYPE, type CrdtType } from './content.ts';
import { OFFLOAD_BYTES, sliceOffThread } from './offload.ts';
import { createRevocation, type LiveConnection, type Resolvers, type Verdict } from './revocation.ts';
import { MESSAGE_AWARENESS, MESSAGE_SYNC, type CrdtStore, type DocKey, type LiveDoc } from './store.ts';
import { socketOpened, socketRefused } from '../admin/monitor-events.ts';

export const YJS_PATH = '/yjs/';
const ROOM_IDS = z.object({ organizationId: id, documentId: id, editorId: id });
const PING_MS = 30_000;

type Connection = LiveConnection;

function reject(socket: Duplex, status: number, reason: string) {
  // the client may be gone already (a reset while its credentials were checked): nothing to answer then
  if (socket.destroyed) return;
  socket.write(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
  );
  socket.destroy();
}

interface Authorization {
  scope: TenantScope;
  readOnly: boolean;
  userId: string | null;
  recheck: (resolvers: Resolvers) => Promise<Verdict>;
}

/** 4401 when the credentials no longer hold, 4403 when they hold but no longer open this document. */
const revoked = (code: 4401 | 4403, reason: string): Verdict => ({ allow: 'none', code, reason });

/**
 * Who may open `/yjs/{organizationId}/{documentId}/{editorId}`: the API key's credentials (`apiKey` +
 * `authToken`: a backend, full access), or a user token from /v2/auth/generate_token (`apiKey` + `token`),
 * whose role on the document (the access service decides) makes the connection read-write or read-only.
 * `recheck` makes the same decision again on what is stored later (an access change, server/crdt/revocation.ts).
 */
async function authorize(app: AppContext, key: Omit<DocKey, 'apiKeyId'>, params: URLSearchParams, origin: string | undefined): Promise<Authorization> {
  const apiKey = params.get('apiKey');
  if (!apiKey) throw new ApiError('UNAUTHENTICATED', 'apiKey is required');
  const ticket = params.get('ticket');
  if (ticket) {
    // the admin UI's inspector: read-only, one document, minutes; its page is Hearth's own, not the key's app (so a
    // disabled key's documents can still be inspected)
    if (!app.uiTickets.valid(ticket, { apiKeyId: apiKey, ...key })) throw new ApiError('PERMISSION_DENIED', 'invalid or expired ticket');
    const scope = await app.storage.keys.scopeFor(apiKey, { kind: 'admin' });
    if (!scope) throw new ApiError('PERMISSION_DENIED', 'invalid or expired ticket');
    return { scope, readOnly: true, userId: null, recheck: async () => ({ allow: 'read' }) };
  }
  const authToken = params.get('authToken');
  if (authToken) {
    const verified = await authenticateApiKey(app, apiKey, authToken);
    checkOrigin(verified.key.allowedDomains, origin);
    const recheck = async (): Promise<Verdict> => {
      let allowedDomains: readonly string[];
      try {
        allowedDomains = (await authenticateApiKey(app, apiKey, authToken)).key.allowedDomains;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error instanceof ApiKeyDisabledError) return revoked(4403, 'API key disabled');
        return revoked(4401, 'credentials revoked');
      }
      return origin !== undefined && !originAllowed(allowedDomains, origin) ? revoked(4403, 'origin no longer allowed') : { allow: 'write' };
    };
    return { scope: verified.scope, readOnly: false, userId: null, recheck };
  }
  const token = params.get('token');
  if (!token) throw new ApiError('UNAUTHENTICATED', 'authToken or token is required');
  const claims = await verifyUserToken(app, apiKey, token);
  if (!claims) throw new ApiError('PERMISSION_DENIED', 'invalid or expired token');
  const found = await app.storage.keys.withScope(apiKey, { kind: 'user', userId: claims.userId });
  if (!found) throw new ApiError('PERMISSION_DENIED', 'invalid or expired token');
  const { key: stored, scope } = found;
  if (stored.disabled) throw new ApiKeyDisabledError();
  checkOrigin(stored.allowedDomains, origin);
  // the permission provider's decision when the key is in that mode (services/permission-provider.ts)
  const decision = await userDocumentAccess(app, scope, stored, key.organizationId, key.documentId, claims.userId);
  if (!decision.access) throw new ApiError('PERMISSION_DENIED', `no access to this document: ${decision.reasons.join('; ')}`);
  const recheck = async (resolvers: Resolvers): Promise<Verdict> => {
    if (claims.exp !== undefined && claims.exp * 1000 <= currentTime()) return revoked(4401, 'token expired');
    const now = await app.storage.keys.find(scope);
    if (!now || now.disabled) return revoked(4403, 'API key disabled');
    if (origin !== undefined && !originAllowed(now.allowedDomains, origin)) return revoked(4403, 'origin no longer allowed');
    const question = { userId: claims.userId, type: 'document' as const, resourceId: key.documentId, organizationId: key.organizationId };
    const access =
      (await askPermissionProvider(app, scope, now, [question]))?.[0] ?? (await resolvers(scope, key.organizationId).document(claims.userId, key.documentId));
    if (!access.access) return revoked(4403, 'access revoked');
    return { allow: access.accessRole === 'editor' ? 'write' : 'read' };
  };
  return { scope, readOnly: decision.accessRole !== 'editor', userId: claims.userId, recheck };
}

/**
 * A page (the only client that states an Origin) may use the key only from one of its allowed domains
 * (/v2/workspace/domains/*; an empty list allows any). Clients that state no origin (servers, scripts) are not
 * browsers and are not bound by it.
 */
function checkOrigin(allowed: readonly string[], origin: string | undefined) {
  if (origin !== undefined && !originAllowed(allowed, origin))
    throw new ApiError('PERMISSION_DENIED', `Origin ${origin} is not an allowed domain of this API key.`);
}

function send(conn: Connection, message: Uint8Array) {
  if (conn.ws.readyState !== WebSocket.OPEN) return;
  conn.ws.send(message, (error) => {
    if (error) conn.ws.terminate();
  });
}

/** ws's codes for its errors (RFC 6455 §7.4.1: 1002 protocol error, 1007 invalid payload, 1009 too big). */
const closeCodeOf = (error: Error): number | undefined => {
  const symbol = Object.getOwnPropertySymbols(error).find((s) => s.description === 'status-code');
  const code = symbol ? (error as unknown as Record<symbol, unknown>)[symbol] : undefined;
  return typeof code === 'number' ? code : undefined;
};

const wired = new WeakSet<LiveDoc>();

function attach(entry: LiveDoc, conn: Connection) {
  entry.conns.set(conn, new Set());
  entry.broadcast = (message, except) => {
    for (const other of entry.conns.keys()) if (other !== except) send(other as Connection, message);
  };
  if (!wired.has(entry)) {
    wired.add(entry);
    entry.awareness.on('update', ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      const changed = [...added, ...updated, ...removed];
      const controlled = origin && typeof origin === 'object' ? entry.conns.get(origin) : undefined;
      if (controlled) {
        for (const id of added) controlled.add(id);
        for (const id of removed) controlled.delete(id);
      }
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(entry.awareness, changed));
      entry.broadcast(encoding.toUint8Array(encoder));
    });
  }
}

async function onMessage(store: CrdtStore, entry: LiveDoc, conn: Connection, data: Uint8Array) {
  entry.lastActivity = Date.now();
  const decoder = decoding.createDecoder(data);
  const encoder = encoding.createEncoder();
  const kind = decoding.readVarUint(decoder);
  if (kind === MESSAGE_SYNC) {
    const step = decoding.readVarUint(decoder);
    if (step === syncProtocol.messageYjsSyncStep1) {
      // The answer to step 1 carries the document's state: only what is stored may go out.
      if (entry.pending.length > 0 || entry.sealed.length > 0) await store.flush();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncStep1(decoder, encoder, entry.doc);
      send(conn, encoding.toUint8Array(encoder));
    } else if (step === syncProtocol.messageYjsSyncStep2 || step === syncProtocol.messageYjsUpdate) {
      // a viewer may ask for the state (step 1) but its own changes are dropped
      if (conn.readOnly) return;
      // What y-protocols' readSyncMessage does, but an update Yjs refuses (a corrupted one) throws here, so that
      // the connection is closed as for any bad message, and logged once, instead of a stack trace on stderr
      // for each (y-protocols catches it and calls console.error).
      // A large one is cut into slices in the Yjs worker thread and applied one per turn of the event loop, so that
      // one client's message (30,000 nested XML elements in 313 KB: 90–170 ms in one piece) holds no one else up.
      const update = decoding.readVarUint8Array(decoder);
      if (update.length <= OFFLOAD_BYTES) return Y.applyUpdate(entry.doc, update, conn);
      const slices = await sliceOffThread(update);
      for (const [i, slice] of slices.entries()) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        // the connection closed meanwhile (or the document was unloaded, closing it): the client sends it again
        if (conn.ws.readyState !== WebSocket.OPEN || !entry.conns.has(conn)) return;
        Y.applyUpdate(entry.doc, slice, conn);
      }
    } else {
      throw new Error(`unknown sync message type ${step}`);
    }
  } else if (kind === MESSAGE_AWARENESS) {
    // only the client ids this connection introduced: no one sets or removes another's presence
    const update = ownedAwarenessUpdate(decoding.readVarUint8Array(decoder), conn, entry.conns, entry.awareness.clientID);
    if (update) awarenessProtocol.applyAwarenessUpdate(entry.awareness, update, conn);
  }
}

function detach(entry: LiveDoc, conn: Connection) {
  const controlled = entry.conns.get(conn);
  entry.conns.delete(conn);
  entry.lastActivity = Date.now();
  if (controlled?.size) awarenessProtocol.removeAwarenessStates(entry.awareness, [...controlled], null);
}

/** y-websocket on the HTTP server's port: sync and awareness, persisted through the CRDT store. */
export function attachYjsWebsocket(app: AppContext, http: Server, store: CrdtStore, guard?: Pick<ConnectionGuard, 'admitWebsocket'>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: app.config.maxBodyBytes });
  const revocation = createRevocation(app, store);

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the socket over without its own 'error' listener: from here until ws takes it, a reset (while the
    // credentials are checked, say) is this listener's, never an uncaught 'error' that stops the process.
    const onSocketError = (error: Error) => {
      app.log.warn('websocket upgrade: connection lost before it opened', { error: error.message });
      socket.destroy();
    };
    socket.on('error', onSocketError);
    void upgrade(req, socket, head, onSocketError).catch((error: unknown) => {
      app.log.error('websocket upgrade failed', { error: String(error) });
      reject(socket, 500, 'Internal error');
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, onSocketError: (error: Error) => void) {
    // a page whose name rebinds to this machine must not reach the documents either (http/host-check.ts)
    if (!app.hostAllowed(req.headers.host)) return reject(socket, 403, hostRefusal(req.headers.host as string));
    // each address's share of websockets (http/connections.ts); 503: the stock provider tries again later
    if (guard && !guard.admitWebsocket(socket)) return reject(socket, 503, 'Too many websockets from this address');
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(YJS_PATH)) return reject(socket, 404, 'Not Found');
    const parts = url.pathname.slice(YJS_PATH.length).split('/');
    if (parts.length !== 3 || parts.some((p) => !p)) return reject(socket, 400, 'Expected /yjs/{organizationId}/{documentId}/{editorId}');
    let ids: string[];
    try {
      ids = parts.map((p) => decodeURIComponent(p));
    } catch {
      return reject(socket, 400, 'Bad URI encoding');
    }
    // the ids as the REST operations read them (trimmed, at most 256 characters), so both name the same room
    let room: Omit<DocKey, 'apiKeyId'>;
    try {
      room = parseInput(ROOM_IDS, { organizationId: ids[0], documentId: ids[1], editorId: ids[2] });
    } catch (error) {
      return reject(socket, 400, error instanceof ApiError ? error.message : 'Bad room path');
    }
    let auth: Authorization;
    try {
      auth = await authorize(app, room, url.searchParams, req.headers.origin);
    } catch (error) {
      if (error instanceof ApiError) {
        socketRefused(app, url.searchParams.get('apiKey'), room, error.status === 'UNAUTHENTICATED' ? 401 : 403, error.message);
        return reject(socket, error.status === 'UNAUTHENTICATED' ? 401 : 403, error.message);
      }
      app.log.error('websocket authorization failed', { error: String(error) });
      return reject(socket, 500, 'Internal error');
    }
    // the client may have left while its credentials were checked (onSocketError logged the reset): no upgrade
    if (socket.destroyed) return;
    const key: DocKey = { apiKeyId: auth.scope.apiKeyId, ...room };
    let entry: LiveDoc | undefined;
    try {
      entry = await store.load(auth.scope, room);
      if (!entry) {
        if (auth.readOnly) return reject(socket, 404, 'No such document');
        // What the client leaves unsaid is learned from the first content it writes (a TipTap editor's `default` fragment).
        const given = { type: url.searchParams.get('type'), contentKey: url.searchParams.get('contentKey') || null };
        const type = (given.type ?? 'text') as CrdtType;
        if (!CRDT_DATA_TYPES.includes(type)) return reject(socket, 400, `type must be one of ${CRDT_DATA_TYPES.join(', ')}`);
        // PostgreSQL stores no U+0000, SQLite would: refused on both (issue 43)
        if (given.contentKey?.includes('\u0000')) return reject(socket, 400, 'contentKey must not contain the NUL character (U+0000).');
        try {
          await store.create(
            auth.scope,
            room,
            type,
            given.contentKey ?? DEFAULT_CONTENT_KEY,
            (given.type === null ? INFER_TYPE : 0) | (given.contentKey === null ? INFER_KEY : 0),
          );
        } catch (error) {
          // Clients that open a new room at once (on this instance or another) each try to create it: the first
          // one's row stands, and the others open it. Any other failure leaves no row, and is thrown below.
          if (!(await store.find(auth.scope, room))) throw error;
        }
        // A load begun before the row existed (another client's, found nothing) may still be the one in flight: a
        // fresh one follows it.
        entry = (await store.load(auth.scope, room)) ?? (await store.load(auth.scope, room));
        if (!entry) throw new Error('the new document could not be loaded');
      }
    } catch (error) {
      app.log.error('document load failed', { error: String(error), ...key });
      return reject(socket, 503, 'The document could not be loaded');
    }
    const loaded = entry;
    // the client may have left while the document loaded
    if (socket.destroyed) return;
    // ws listens for the socket's errors from here (its handshake, then the connection's own listener)
    socket.off('error', onSocketError);
    wss.handleUpgrade(req, socket, head, (ws) => {
      // the request monitor's websocket events (admin/monitor-events.ts): the access decided, then the close
      const closed = socketOpened(app, auth.scope, room, { ...auth, ticket: url.searchParams.has('ticket') });
      ws.on('close', (code: number, reason: Buffer) => closed(code, reason.toString('utf8')));
      open(ws, loaded, key, auth);
    });
  }

  function open(ws: WebSocket, loaded: LiveDoc, key: DocKey, auth: Authorization) {
    // dropped from memory while the handshake ran (deleted, or reloaded from storage): the client connects again
    if (store.loaded(auth.scope, key) !== loaded) {
      ws.close(1013, 'document reloaded; reconnect');
      return;
    }
    const conn: Connection = { ws, key, scope: auth.scope, readOnly: auth.readOnly, userId: auth.userId, recheck: auth.recheck };
    // A bad frame (a reserved opcode or bit, an unmasked or oversized frame, bad UTF-8, a bad close code) or a write
    // that fails: ws has closed the connection with the code RFC 6455 names, and emits it here; without a listener
    // it would be thrown, and stop the process.
    ws.on('error', (error: Error) => {
      app.log.warn('websocket closed: bad frame or socket error', {
        error: error.message,
        code: (error as { code?: unknown }).code,
        closeCode: closeCodeOf(error),
        ...key,
      });
    });
    ws.binaryType = 'arraybuffer';
    attach(loaded, conn);
    revocation.add(conn);
    let alive = true;
    ws.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, PING_MS);
    // One connection's messages are handled in order: a message waits for the one before it (a sync step that waits
    // for pending updates to be stored, say) before it is read.
    let handled: Promise<void> = Promise.resolve();
    ws.on('message', (data: ArrayBuffer | Buffer) => {
      const message = new Uint8Array(data as ArrayBuffer);
      handled = handled.then(async () => {
        // a closing connection (its access revoked, say) is sent nothing and heard no more
        if (ws.readyState !== WebSocket.OPEN) return;
        try {
          await onMessage(store, loaded, conn, message);
        } catch (error) {
          app.log.warn('bad websocket message', { error: String(error) });
          ws.close(1003, 'bad message');
        }
      });
    });
    ws.on('close', () => {
      clearInterval(ping);
      revocation.remove(conn);
      detach(loaded, conn);
    });
    // start the sync: our state vector, then the awareness states we know
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(encoder, loaded.doc);
    send(conn, encoding.toUint8Array(encoder));
    const states = loaded.awareness.getStates();
    if (states.size > 0) {
      const aw = encoding.createEncoder();
      encoding.writeVarUint(aw, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(aw, awarenessProtocol.encodeAwarenessUpdate(loaded.awareness, [...states.keys()]));
      send(conn, encoding.toUint8Array(aw));
    }
  }

  return {
    close() {
      revocation.close();
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      wss.close();
    },
  };
}
