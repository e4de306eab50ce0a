import { randomBytes } from 'node:crypto';
import type { DocKey } from '../crdt/store.ts';

const TTL_MS = 10 * 60 * 1000;
/**
 * The most tickets kept at once (issue 42: any signed-in session, of any self-made workspace, can ask for them);
 * past it the oldest go first, whose pages open a fresh one when they reconnect.
 */
const MAX_TICKETS = 10_000;

/**
 * Read-only websocket tickets for the admin UI's CRDT inspector: the page opens the document with
 * `?apiKey=…&ticket=…` instead of holding the key's auth token. A ticket names one editor document and expires
 * after 10 minutes (reconnects within that time reuse it); the connection it opens can never write.
 */
export function createTickets() {
  const tickets = new Map<string, { key: DocKey; expiresAt: number }>();
  return {
    issue(key: DocKey): string {
      const now = Date.now();
      // a Map keeps insertion order, which is expiry order (one TTL): the expired are at the front
      for (const [id, t] of tickets) {
        if (t.expiresAt >= now && tickets.size < MAX_TICKETS) break;
        tickets.delete(id);
      }
      const id = randomBytes(24).toString('base64url');
      tickets.set(id, { key: { ...key }, expiresAt: now + TTL_MS });
      return id;
    },
    valid(id: string, key: DocKey): boolean {
      const t = tickets.get(id);
      if (!t || t.expiresAt < Date.now()) return false;
      return (
        t.key.apiKeyId === key.apiKeyId && t.key.organizationId === key.organizationId && t.key.documentId === key.documentId && t.key.editorId === key.editorId
      );
    },
    /** How many tickets are kept (tests). */
    get size(): number {
      return tickets.size;
    },
  };
}

export type Tickets = ReturnType<typeof createTickets>;
