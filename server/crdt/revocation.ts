// Access changes reach open connections (issue 28, point 5). A connection's rights are decided at the upgrade; a
// later change (a permission removed, an access type or disable state changed, a user, document or organization
// deleted, an auth token reset, the API key disabled) is published on `app.accessEvents` by the service that
// committed it, and each open connection in its scope is decided again, with the rules of the upgrade, on what is
// stored then:
// - its room deleted: closed by the store (4404, as for any room deleted under a connection);
// - no access any more: closed with 4403 (4401 when its credentials no longer hold); y-websocket clients do not
//   reconnect after a 44xx close;
// - viewer now: read-only from then on (its further updates dropped, as a viewer's are).
// Events are coalesced: the first one arms a short timer, and every connection any of them names is checked once.
import { WebSocket } from 'ws';
import type { AppContext } from '../context.ts';
import { createAccessResolver, type AccessResolver } from '../services/access.ts';
import type { AccessChange } from '../services/access-events.ts';
import type { TenantScope } from '../db/scope.ts';
import type { CrdtStore, DocKey } from './store.ts';

/** How long events are collected before the connections they name are checked (well within the second allowed). */
export const ACCESS_RECHECK_MS = 50;

/** What a connection may do now: write, read, or nothing (closed with `code` and `reason`). */
export type Verdict = { allow: 'write' | 'read' } | { allow: 'none'; code: number; reason: string };

/** Access resolvers of one check, one per (API key, organization), so that a bulk change reads each row once. */
export type Resolvers = (scope: TenantScope, organizationId: string) => AccessResolver;

export interface LiveConnection {
  ws: WebSocket;
  key: DocKey;
  /** The key the connection's room belongs to. */
  scope: TenantScope;
  readOnly: boolean;
  /** The user of a user token; null for the key's own credentials and the admin UI's tickets. */
  userId: string | null;
  /** The upgrade's decision, made again on what is stored now. */
  recheck: (resolvers: Resolvers) => Promise<Verdict>;
}

function inScope(change: AccessChange, conn: LiveConnection): boolean {
  if (change.organizationId !== undefined && change.organizationId !== conn.key.organizationId) return false;
  if (change.documentIds && !change.documentIds.includes(conn.key.documentId)) return false;
  if (change.userIds && (conn.userId === null || !change.userIds.includes(conn.userId))) return false;
  return true;
}

/** The open connections by API key, checked again when an access change names them. */
export function createRevocation(app: Pick<AppContext, 'storage' | 'log' | 'accessEvents'>, store: CrdtStore) {
  const byApiKey = new Map<string, Set<LiveConnection>>();
  let pending: AccessChange[] = [];
  let timer: NodeJS.Timeout | undefined;

  const unsubscribe = app.accessEvents.subscribe((change) => {
    if (!byApiKey.has(change.apiKeyId)) return;
    pending.push(change);
    timer ??= setTimeout(checkPending, ACCESS_RECHECK_MS);
  });

  function checkPending() {
    timer = undefined;
    const changes = pending;
    pending = [];
    const affected = new Set<LiveConnection>();
    for (const change of changes) for (const conn of byApiKey.get(change.apiKeyId) ?? []) if (inScope(change, conn)) affected.add(conn);
    if (affected.size === 0) return;
    const resolvers = new Map<string, AccessResolver>();
    const resolverFor: Resolvers = (scope, organizationId) => {
      const id = JSON.stringify([scope.apiKeyId, organizationId]);
      let resolver = resolvers.get(id);
      if (!resolver) resolvers.set(id, (resolver = createAccessResolver(app, scope, organizationId)));
      return resolver;
    };
    for (const conn of affected) void check(conn, resolverFor);
  }

  async function check(conn: LiveConnection, resolvers: Resolvers) {
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    let verdict: Verdict;
    try {
      // The room first: loading it drops a deleted one (or one deleted and made again) and closes its connections.
      if (!(await store.load(conn.scope, conn.key))?.conns.has(conn)) return;
      verdict = await conn.recheck(resolvers);
    } catch (error) {
      app.log.error('websocket access check failed; closing the connection', { error: String(error), ...conn.key });
      verdict = { allow: 'none', code: 1011, reason: 'access check failed' };
    }
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    // Refused on what is stored now: a room deleted since the look above (a delete that committed while this check
    // ran, an earlier event's) is closed by the store as gone (4404), not here as a revoked access (4403).
    if (verdict.allow === 'none' && verdict.code !== 1011) {
      try {
        if (!(await store.load(conn.scope, conn.key))?.conns.has(conn)) return;
      } catch {
        // the verdict stands
      }
      if (conn.ws.readyState !== WebSocket.OPEN) return;
    }
    if (verdict.allow === 'none') {
      app.log.info('websocket closed: access changed', { code: verdict.code, reason: verdict.reason, userId: conn.userId ?? undefined, ...conn.key });
      conn.ws.close(verdict.code, verdict.reason);
    } else if (verdict.allow === 'read' && !conn.readOnly) {
      app.log.info('websocket made read-only: access changed', { userId: conn.userId ?? undefined, ...conn.key });
      conn.readOnly = true;
    }
  }

  return {
    add(conn: LiveConnection) {
      let set = byApiKey.get(conn.key.apiKeyId);
      if (!set) byApiKey.set(conn.key.apiKeyId, (set = new Set()));
      set.add(conn);
    },
    remove(conn: LiveConnection) {
      const set = byApiKey.get(conn.key.apiKeyId);
      if (!set) return;
      set.delete(conn);
      if (set.size === 0) byApiKey.delete(conn.key.apiKeyId);
    },
    close() {
      unsubscribe();
      clearTimeout(timer);
      timer = undefined;
      pending = [];
    },
  };
}
