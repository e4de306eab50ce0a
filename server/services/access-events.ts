// "Access changed": what a service tells the rest of the process once a change that can take a user's access away
// (or lower it to viewer) is committed, so that open connections are checked again (server/crdt/revocation.ts).
// An event names where to look, not what was decided: the listener decides again from what is stored, with the
// same rules as when the connection opened. So an event is small, plain JSON, and harmless when the transaction
// that published it rolled back or when it reaches a process that holds no connection: an instance in front of
// the same database is told through Redis (cluster/bus.ts) and checks its own connections alike.
import type { ClusterBus } from '../cluster/bus.ts';
import type { Logger } from '../log.ts';

/** Which open connections to check again: an API key's, narrowed by each field given. */
export interface AccessChange {
  apiKeyId: string;
  /** Only this organization's documents; absent: every organization of the key. */
  organizationId?: string;
  /** Only these documents (of `organizationId`); absent: every document in scope. */
  documentIds?: string[];
  /**
   * Only these users' connections (user tokens); absent: every connection in scope, the key's own credentials'
   * included (a reset auth token, a changed list of allowed domains).
   */
  userIds?: string[];
}

export type AccessListener = (change: AccessChange) => void;

export interface AccessEvents {
  /** Tells every listener, synchronously; called after the change's transaction committed. Never throws. */
  publish(change: AccessChange): void;
  /** Returns the function that stops listening. */
  subscribe(listener: AccessListener): () => void;
}

/** The channel every instance of a cluster hears access changes on (cluster/bus.ts). */
const ACCESS_CHANNEL = 'access';

/**
 * Events of this process, and with `cluster` of every instance: a change published here is sent to the others,
 * and theirs are told to this instance's listeners as if published here. Resolves once the other instances'
 * changes are heard.
 */
export async function createAccessEvents(log: Pick<Logger, 'error' | 'warn'>, cluster?: ClusterBus): Promise<AccessEvents> {
  const listeners = new Set<AccessListener>();
  const tell = (change: AccessChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        // the change is committed and answered: a listener's failure is logged, never the caller's error
        log.error('access change listener failed', { error: String(error), apiKeyId: change.apiKeyId });
      }
    }
  };
  await cluster?.subscribe(ACCESS_CHANNEL, (payload) => {
    let change: AccessChange;
    try {
      change = JSON.parse(payload.toString('utf8')) as AccessChange;
    } catch {
      return log.warn('cluster access change dropped: not JSON');
    }
    if (typeof change?.apiKeyId === 'string') tell(change);
  });
  return {
    publish(change) {
      tell(change);
      cluster?.publish(ACCESS_CHANNEL, Buffer.from(JSON.stringify(change)));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
