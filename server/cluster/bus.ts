// What instances of one cluster tell each other, over Redis (issue 31; DESIGN §6): Yjs updates and awareness per room
// (crdt/store.ts), access changes (services/access-events.ts), rate-limit counters (http/rate-limit.ts), and the
// locks of work one instance does at a time (a room's compaction). PostgreSQL stays the system of record: nothing
// here is needed to read or write data, and nothing is kept in Redis that a restart of it would lose for good.
//
// Two connections, as pub/sub needs (a subscribed connection may only subscribe): one publishes and runs commands,
// the other subscribes. Messages are binary; each starts with the sending instance's id, so that an instance drops
// its own (Redis delivers a message to every subscriber, the publisher's own connection included).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../log.ts';

/**
 * The prefix of every key and channel Hearth uses, so that one Redis may serve other programs too. Two clusters
 * should not share a Redis: pub/sub channels ignore database numbers. (Their rooms would not mix, since channels
 * name API key ids, but each would hear the other's access changes and check its sockets for nothing.)
 */
export const KEY_PREFIX = 'hearth:';
const ID_BYTES = 12;
/** Each connection's name: this prefix and the instance's id (CLIENT LIST names the instances a Redis serves). */
const CONNECTION_PREFIX = 'hearth-';
/** The id of the cluster this Redis serves (cluster/identity.ts). */
const CLUSTER_ID_KEY = `${KEY_PREFIX}cluster-id`;

export type MessageHandler = (payload: Buffer) => void;

export interface ClusterBus {
  /** This instance's id (random per start), first in every message it publishes. */
  readonly instanceId: string;
  /** Sends `payload` to every other instance subscribed to `channel` (fire and forget: Redis pub/sub is at most once). */
  publish(channel: string, payload: Uint8Array): void;
  /**
   * Listens to `channel`; resolves once Redis confirmed the subscription, so that whatever is published from then
   * on arrives. Returns the function that stops listening. Several listeners of one channel share one subscription.
   */
  subscribe(channel: string, handler: MessageHandler): Promise<() => void>;
  /**
   * Takes the lock `name` for `ttlMs` unless another instance holds it: the function that releases it (only if it
   * is still this holder's), or undefined when it is held. The expiry frees the lock of an instance that died.
   */
  lock(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  /** Adds each count to its counter, which expires `ttlMs` after its first count; the counters' new values. */
  count(increments: ReadonlyArray<{ key: string; by: number; ttlMs: number }>): Promise<number[]>;
  /** Rejects unless Redis answers (GET /readyz). */
  ping(): Promise<void>;
  /**
   * Writes `clusterId` as this Redis's cluster id unless it holds one already (cluster/identity.ts): the id it holds
   * now, and whether this call wrote it.
   */
  claimClusterId(clusterId: string): Promise<{ held: string; written: boolean }>;
  /** The cluster id this Redis holds, or null (a new Redis, a flushed one, or the wrong one, empty). */
  heldClusterId(): Promise<string | null>;
  /**
   * The instance ids of the Hearth instances connected to this Redis (their connection names, CLIENT LIST);
   * undefined when Redis refuses the command (a managed Redis may).
   */
  connectedInstances(): Promise<Set<string> | undefined>;
  close(): Promise<void>;
}

/** Deletes the lock only if it still holds this holder's token (it may have expired and been taken by another). */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
/** INCRBY, and the expiry on the counter's first count. */
const COUNT = "local n = redis.call('incrby', KEYS[1], ARGV[1]) if n == tonumber(ARGV[1]) then redis.call('pexpire', KEYS[1], ARGV[2]) end return n";

export async function connectClusterBus(url: string, log: Logger): Promise<ClusterBus> {
  const idBytes = randomBytes(ID_BYTES);
  const instanceId = idBytes.toString('hex');
  const options = {
    // a start fails at once when Redis cannot be reached; later outages are retried (ioredis reconnects)
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectionName: `${CONNECTION_PREFIX}${instanceId}`,
  };
  const commands = new Redis(url, options);
  const subscriber = new Redis(url, options);
  let closing = false;
  /** The last connection error: ioredis rejects a failed first connect with "Connection is closed." only. */
  let lastError: Error | undefined;
  for (const [name, connection] of [
    ['commands', commands],
    ['subscriber', subscriber],
  ] as const) {
    let down = false;
    connection.on('error', (error: Error) => {
      lastError = error;
      if (closing || down) return;
      down = true;
      log.error('Redis connection lost; reconnecting', { connection: name, error: error.message });
    });
    connection.on('ready', () => {
      if (down) log.info('Redis connection back', { connection: name });
      down = false;
    });
  }
  try {
    await Promise.all([commands.connect(), subscriber.connect()]);
  } catch (error) {
    commands.disconnect();
    subscriber.disconnect();
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`REDIS_URL: Redis cannot be reached (${reason})`, { cause: lastError ?? error });
  }

  /** Messages lost since the last one published (Redis unreachable). */
  let unpublished = 0;
  const handlers = new Map<string, Set<MessageHandler>>();
  /** Subscriptions being made or dropped, per channel: a subscribe waits for an unsubscribe of the same channel. */
  const changing = new Map<string, Promise<unknown>>();
  subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => {
    if (message.length < ID_BYTES || idBytes.equals(message.subarray(0, ID_BYTES))) return;
    const listeners = handlers.get(channel.toString());
    if (!listeners) return;
    const payload = message.subarray(ID_BYTES);
    for (const handler of listeners) {
      try {
        handler(payload);
      } catch (error) {
        log.error('cluster message handler failed', { channel: channel.toString(), error: String(error) });
      }
    }
  });

  const after = (channel: string, step: () => Promise<unknown>) => {
    const next = (changing.get(channel) ?? Promise.resolve()).then(step, step);
    changing.set(channel, next);
    // the caller hears of a failure through `next`; this branch only forgets it
    next
      .finally(() => {
        if (changing.get(channel) === next) changing.delete(channel);
      })
      .catch(() => undefined);
    return next;
  };

  return {
    instanceId,
    publish(channel, payload) {
      commands.publish(KEY_PREFIX + channel, Buffer.concat([idBytes, payload])).then(
        () => {
          if (unpublished > 0) log.info('cluster messages published again', { lost: unpublished });
          unpublished = 0;
        },
        (error: unknown) => {
          // once an outage, not once a keystroke
          if (unpublished++ === 0) log.warn('cluster messages not published (Redis unreachable): other instances miss them', { channel, error: String(error) });
        },
      );
    },
    async subscribe(channel, handler) {
      const name = KEY_PREFIX + channel;
      let listeners = handlers.get(name);
      if (!listeners) {
        handlers.set(name, (listeners = new Set()));
        await after(name, () => subscriber.subscribe(name));
      } else await changing.get(name);
      listeners.add(handler);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        const set = handlers.get(name);
        if (!set) return;
        set.delete(handler);
        if (set.size > 0) return;
        handlers.delete(name);
        void after(name, async () => {
          // subscribed again meanwhile: keep it
          if (!handlers.has(name) && !closing) await subscriber.unsubscribe(name);
        }).catch(() => undefined);
      };
    },
    async lock(name, ttlMs) {
      const key = `${KEY_PREFIX}lock:${name}`;
      const token = `${instanceId}:${randomBytes(8).toString('hex')}`;
      if ((await commands.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
      return async () => {
        await commands.eval(RELEASE, 1, key, token);
      };
    },
    async count(increments) {
      if (increments.length === 0) return [];
      const pipeline = commands.pipeline();
      for (const { key, by, ttlMs } of increments) pipeline.eval(COUNT, 1, `${KEY_PREFIX}count:${key}`, by, ttlMs);
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, value]) => {
        if (error) throw error;
        return Number(value);
      });
    },
    async ping() {
      await commands.ping();
    },
    async claimClusterId(clusterId) {
      for (;;) {
        if ((await commands.set(CLUSTER_ID_KEY, clusterId, 'NX')) === 'OK') return { held: clusterId, written: true };
        const held = await commands.get(CLUSTER_ID_KEY);
        // deleted between the two (a flush): try again
        if (held !== null) return { held, written: false };
      }
    },
    heldClusterId: () => commands.get(CLUSTER_ID_KEY),
    async connectedInstances() {
      let list: string;
      try {
        list = String(await commands.client('LIST'));
      } catch {
        return undefined;
      }
      const ids = new Set<string>();
      for (const line of list.split('\n')) {
        const name = / name=(\S*)/.exec(` ${line}`)?.[1];
        if (name?.startsWith(CONNECTION_PREFIX)) ids.add(name.slice(CONNECTION_PREFIX.length));
      }
      return ids;
    },
    async close() {
      closing = true;
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
    },
  };
}
