import { randomBytes } from 'node:crypto';
import type { DocKey } from '../crdt/store.ts';

const TTL_MS = 10 * 60 * 1000;

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
      for (const [id, t] of tickets) if (t.expiresAt < now) tickets.delete(id);
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
  };
}

export type Tickets = ReturnType<typeof createTickets>;
