import { currentTime } from '../clock.ts';
import type { ClusterBus } from '../cluster/bus.ts';
import type { RateLimit } from '../config.ts';
import type { Logger } from '../log.ts';

/** What the operations ask of a limiter: synchronous, since the workspace limit is checked on every request. */
export interface RateLimiter {
  /** Counts `cost` hits (one by default) for `key` and tells whether they are still within `limit`. */
  hit(key: string, limit: RateLimit, cost?: number): boolean;
  /** Stops its timer (on shutdown); hits after it are counted locally. */
  close(): void;
}

/** A lone server's limiter, or a cluster instance's that shares its counts over Redis. */
export function createRateLimiter(cluster: ClusterBus | undefined, log: Logger): RateLimiter {
  return cluster ? new ClusterRateLimiter(cluster, log) : new LocalRateLimiter();
}

/**
 * The most counters a limiter keeps (issue 42): a caller with many addresses (an IPv6 prefix) or e-mail addresses
 * must not grow them without end. Past it, the windows that are over go, then the oldest (their callers start a new
 * window: a flood's own first keys, most likely).
 */
export const MAX_WINDOWS = 100_000;

/**
 * Fixed-window counters kept in memory: enough for one process guarding a local backend. A window's
 * counter is dropped once the window has passed, so memory stays proportional to recent callers.
 */
export class LocalRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number; windowMs: number }>();
  private lastSweep = 0;

  constructor(
    private readonly now: () => number = currentTime,
    private readonly maxWindows = MAX_WINDOWS,
  ) {}

  hit(key: string, limit: RateLimit, cost = 1): boolean {
    const now = this.now();
    this.sweep(now, limit.windowMs);
    const current = this.windows.get(key);
    if (!current || now - current.start >= limit.windowMs) {
      if (!current && this.windows.size >= this.maxWindows) this.trim(now);
      // renewed at the end of the Map's order, which trim() reads as oldest first: a Map keeps a key set again
      // where it first was, and a caller's long-lived counter would go first, not the newcomers' (a limit undone)
      if (current) this.windows.delete(key);
      this.windows.set(key, { start: now, count: cost, windowMs: limit.windowMs });
      return cost <= limit.max;
    }
    current.count += cost;
    return current.count <= limit.max;
  }

  close() {}

  private sweep(now: number, windowMs: number) {
    if (now - this.lastSweep < windowMs || this.windows.size < 1024) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (now - window.start >= windowMs * 10) this.windows.delete(key);
  }

  /** At the cap: drops the windows that are over, then the oldest, down to nine tenths of it. */
  private trim(now: number) {
    for (const [key, window] of this.windows) if (now - window.start >= window.windowMs) this.windows.delete(key);
    const keep = Math.floor(this.maxWindows * 0.9);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= keep) break;
      this.windows.delete(key);
    }
  }

  /** How many counters are kept (tests). */
  get size(): number {
    return this.windows.size;
  }
}

/** How often a cluster instance sends its new hits to Redis, and learns the other instances' from the answer. */
export const SYNC_INTERVAL_MS = 100;
/** A key whose unsent hits reach this fraction of its limit is sent at once, without waiting for the interval. */
const EARLY_SYNC_FRACTION = 0.1;

interface ClusterWindow {
  /** The window's start, a multiple of its length since the epoch: the same window on every instance. */
  start: number;
  windowMs: number;
  /** The cluster-wide count Redis answered last (this instance's sent hits included). */
  synced: number;
  /** Hits sent to Redis whose answer has not come back. */
  sending: number;
  /** Hits not sent yet. */
  unsent: number;
}

/**
 * Fixed windows counted across the instances of a cluster (issue 31), without a Redis round trip per hit: `hit`
 * answers at once from the cluster-wide count Redis last gave plus this instance's hits since, and counts locally.
 * Every SYNC_INTERVAL_MS (sooner for a key whose unsent hits reach a tenth of its limit), the unsent hits go to
 * Redis in one pipelined `cluster.count` (a counter per key and window start, expiring with the window) and each
 * key's answer is its new cluster-wide count. Windows start at multiples of their length, so that every instance
 * counts the same window.
 *
 * The bound on overshoot: an instance refuses a hit once the count it knows passes the limit, and it learns the
 * other instances' hits with the answer to its own next sync. So a window accepts at most the limit plus, for each
 * instance, the hits it accepts before that answer: those of one sync interval (SYNC_INTERVAL_MS and a Redis round
 * trip). For small limits (a tenth of them is one hit) every hit is sent at once, and the interval is a round trip.
 *
 * Redis unreachable: the hits are counted here (the limit then holds per instance, as a lone server's), logged once
 * per outage, and sent when Redis answers again. A request never waits for Redis, nor fails because of it.
 */
export class ClusterRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, ClusterWindow>();
  /** Keys with unsent hits. */
  private readonly dirty = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private syncing = false;
  /** A sync was asked for while one ran: it runs again when that one ends. */
  private again = false;
  private down = false;
  private closed = false;
  private lastSweep = 0;

  constructor(
    private readonly cluster: Pick<ClusterBus, 'count'>,
    private readonly log: Logger,
    private readonly now: () => number = currentTime,
    private readonly intervalMs = SYNC_INTERVAL_MS,
  ) {}

  hit(key: string, limit: RateLimit, cost = 1): boolean {
    const now = this.now();
    this.sweep(now);
    const start = now - (now % limit.windowMs);
    let window = this.windows.get(key);
    // a new window; hits of the last one still being sent are dropped with it (their window is over)
    if (!window || window.start !== start || window.windowMs !== limit.windowMs) {
      if (!window && this.windows.size >= MAX_WINDOWS) this.trim(now);
      // renewed at the end of the Map's order, as in LocalRateLimiter.hit
      if (window) this.windows.delete(key);
      window = { start, windowMs: limit.windowMs, synced: 0, sending: 0, unsent: 0 };
      this.windows.set(key, window);
    }
    window.unsent += cost;
    const count = window.synced + window.sending + window.unsent;
    if (!this.closed) {
      this.dirty.add(key);
      if (window.unsent >= Math.max(1, Math.floor(limit.max * EARLY_SYNC_FRACTION))) this.syncSoon(0);
      else this.syncSoon(this.intervalMs);
    }
    return count <= limit.max;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Sends the hits counted so far now, after a sync already running (tests); resolves once Redis answered or failed. */
  async flush(): Promise<void> {
    while (this.syncing) await new Promise((resolve) => setTimeout(resolve, 1));
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  private syncSoon(delayMs: number) {
    if (this.syncing) {
      if (delayMs === 0) this.again = true;
      return;
    }
    if (this.timer !== undefined && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, delayMs);
    // a CLI command's openApp must be able to exit with hits unsent
    this.timer.unref?.();
  }

  private async sync() {
    if (this.syncing || this.closed || this.dirty.size === 0) return;
    this.syncing = true;
    const batch: Array<{ key: string; window: ClusterWindow; by: number }> = [];
    for (const key of this.dirty) {
      const window = this.windows.get(key);
      if (!window || window.unsent === 0) continue;
      batch.push({ key, window, by: window.unsent });
      window.sending += window.unsent;
      window.unsent = 0;
    }
    this.dirty.clear();
    try {
      const counts = await this.cluster.count(batch.map(({ key, window, by }) => ({ key: `rate:${key}:${window.start}`, by, ttlMs: window.windowMs })));
      batch.forEach(({ window, by }, i) => {
        window.sending -= by;
        // answers only grow within a window; an older answer arriving late must not lower the count
        window.synced = Math.max(window.synced, counts[i] ?? 0);
      });
      if (this.down) this.log.info('rate limits are counted across the cluster again');
      this.down = false;
    } catch (error) {
      if (!this.down && !this.closed)
        this.log.error('rate limits counted on this instance only: Redis does not answer', { error: error instanceof Error ? error.message : String(error) });
      this.down = true;
      // counted here meanwhile, and sent again with the next sync
      for (const { key, window, by } of batch) {
        window.sending -= by;
        window.unsent += by;
        if (this.windows.get(key) === window) this.dirty.add(key);
      }
    } finally {
      this.syncing = false;
    }
    if (this.closed) return;
    if (this.again) {
      this.again = false;
      this.syncSoon(this.down ? this.intervalMs : 0);
    } else if (this.dirty.size > 0) this.syncSoon(this.intervalMs);
  }

  /** At the cap: forgets the windows that are over, then the oldest with nothing to send, down to nine tenths of it. */
  private trim(now: number) {
    for (const [key, window] of this.windows)
      if (now >= window.start + window.windowMs && window.unsent === 0 && window.sending === 0) this.windows.delete(key);
    const keep = Math.floor(MAX_WINDOWS * 0.9);
    for (const [key, window] of this.windows) {
      if (this.windows.size <= keep) break;
      if (window.unsent === 0 && window.sending === 0) this.windows.delete(key);
    }
  }

  /** Forgets windows that are over and have nothing left to send. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000 || this.windows.size < 1024) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows)
      if (now >= window.start + window.windowMs && window.unsent === 0 && window.sending === 0) this.windows.delete(key);
  }
}
