import { randomBytes } from 'node:crypto';
import type { WorkspaceScope } from '../db/scope.ts';

/**
 * Sessions of the admin UI: an opaque id in an HttpOnly, SameSite=Strict cookie scoped to /admin, held in
 * memory (a restart signs the UI out: a new sign-in link, admin/signin.ts, or the workspace's credentials sign
 * it in again). CSRF: the cookie is never sent
 * cross-site, and every admin request must carry the `x-hearth-ui` header, which a cross-origin page cannot add
 * without a CORS preflight that Hearth does not grant.
 */
export const SESSION_COOKIE = 'hearth_session';
export const UI_HEADER = 'x-hearth-ui';
const TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

export function createSessions() {
  const sessions = new Map<string, { workspace: WorkspaceScope; expiresAt: number }>();
  return {
    /** A session of the workspace whose credentials (or sign-in link) were verified. */
    open(workspace: WorkspaceScope): string {
      // bounded: expired sessions go first, then the oldest
      if (sessions.size >= MAX_SESSIONS) {
        const now = Date.now();
        for (const [id, s] of sessions) if (s.expiresAt < now) sessions.delete(id);
        for (const id of sessions.keys()) {
          if (sessions.size < MAX_SESSIONS) break;
          sessions.delete(id);
        }
      }
      const id = randomBytes(24).toString('base64url');
      sessions.set(id, { workspace, expiresAt: Date.now() + TTL_MS });
      return id;
    },
    /** The workspace of a live session, or null. */
    workspaceOf(id: string | undefined): WorkspaceScope | null {
      if (!id) return null;
      const session = sessions.get(id);
      if (!session) return null;
      if (session.expiresAt < Date.now()) {
        sessions.delete(id);
        return null;
      }
      return session.workspace;
    },
    close(id: string | undefined) {
      if (id) sessions.delete(id);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

export const cookieHeader = (id: string) => `${SESSION_COOKIE}=${id}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${TTL_MS / 1000}`;

export function cookieValue(header: string | null): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=');
  }
  return undefined;
}
