// The rate limiters (server/http/rate-limit.ts): a lone server's fixed windows in memory, and a cluster instance's,
// which answers at once from the cluster-wide count Redis last gave plus its own hits since, sends its hits in
// batches, and counts alone while Redis does not answer. Redis is a counter store in memory here (what
// `ClusterBus.count` does: INCRBY, the expiry on the first count); test/cluster/rate-limits.test.ts runs the real one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterRateLimiter, LocalRateLimiter, SYNC_INTERVAL_MS } from '../../server/http/rate-limit.ts';
import type { Logger } from '../../server/log.ts';

const MINUTE = 60_000;

/** Counters shared by the limiters of one test, as Redis's are by the instances. */
function fakeRedis() {
  const counters = new Map<string, { value: number; ttlMs: number }>();
  let failing = false;
  const calls: Array<Array<{ key: string; by: number; ttlMs: number }>> = [];
  return {
    counters,
    calls,
    fail(on: boolean) {
      failing = on;
    },
    async count(increments: ReadonlyArray<{ key: string; by: number; ttlMs: number }>) {
      calls.push([...increments]);
      await Promise.resolve();
      if (failing) throw new Error('connect ECONNREFUSED');
      return increments.map(({ key, by, ttlMs }) => {
        const counter = counters.get(key) ?? { value: 0, ttlMs };
        counter.value += by;
        counters.set(key, counter);
        return counter.value;
      });
    },
  };
}

function recordingLog() {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  const log: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), enabled: () => true };
  return { log, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LocalRateLimiter', () => {
  it('accepts `max` hits per key in a window, refuses the rest, and starts again in the next window', () => {
    let now = 1_000;
    const limiter = new LocalRateLimiter(() => now);
    const limit = { max: 3, windowMs: MINUTE };
    expect([1, 2, 3, 4].map(() => limiter.hit('k', limit))).toEqual([true, true, true, false]);
    expect(limiter.hit('other', limit)).toBe(true);
    now += MINUTE;
    expect(limiter.hit('k', limit)).toBe(true);
  });
});

describe('ClusterRateLimiter', () => {
  it('shares one window between instances: hits of both count against the limit, learnt with each sync', async () => {
    const redis = fakeRedis();
    const { log } = recordingLog();
    const now = () => 5 * MINUTE + 1_234;
    const a = new ClusterRateLimiter(redis, log, now);
    const b = new ClusterRateLimiter(redis, log, now);
    const limit = { max: 10, windowMs: MINUTE };
    try {
      const accepted = { a: 0, b: 0 };
      // turns of the two instances, each syncing after its hit: an instance learns the other's hits from the answer
      // to its own sync, so it answers its next hit without the other's last one, the overshoot: one hit here
      for (let turn = 0; turn < 10; turn++) {
        if (a.hit('ws', limit)) accepted.a++;
        await a.flush();
        if (b.hit('ws', limit)) accepted.b++;
        await b.flush();
      }
      expect(accepted.a + accepted.b).toBe(11);
      expect(accepted.a).toBeGreaterThan(0);
      expect(accepted.b).toBeGreaterThan(0);
      // one counter per key and window, the window's start in its name, expiring with the window
      expect([...redis.counters.keys()]).toEqual([`rate:ws:${5 * MINUTE}`]);
      expect(redis.counters.get(`rate:ws:${5 * MINUTE}`)).toEqual({ value: 20, ttlMs: MINUTE });
    } finally {
      a.close();
      b.close();
    }
  });

  it('answers from what it knows: hits of another instance not synced yet are the overshoot, bounded by one interval', async () => {
    const redis = fakeRedis();
    const { log } = recordingLog();
    const a = new ClusterRateLimiter(redis, log, () => 0);
    const b = new ClusterRateLimiter(redis, log, () => 0);
    const limit = { max: 100, windowMs: MINUTE };
    try {
      // a takes 60 hits and syncs; b, which has not synced since, still accepts up to the limit on its own
      for (let i = 0; i < 60; i++) expect(a.hit('ws', limit)).toBe(true);
      await a.flush();
      let acceptedByB = 0;
      for (let i = 0; i < 100; i++) if (b.hit('ws', limit)) acceptedByB++;
      expect(acceptedByB).toBe(100);
      // once b has synced it knows a's 60: the window is full; a learns b's 100 with its next hit's sync
      await b.flush();
      expect(b.hit('ws', limit)).toBe(false);
      expect(a.hit('ws', limit)).toBe(true);
      await a.flush();
      expect(a.hit('ws', limit)).toBe(false);
    } finally {
      a.close();
      b.close();
    }
  });

  it('sends hits in one batch per interval, and at once for a key whose unsent hits reach a tenth of its limit', async () => {
    vi.useFakeTimers();
    const redis = fakeRedis();
    const { log } = recordingLog();
    const limiter = new ClusterRateLimiter(redis, log, () => 0);
    try {
      const big = { max: 1_000, windowMs: MINUTE };
      limiter.hit('x', big);
      limiter.hit('y', big);
      limiter.hit('x', big);
      expect(redis.calls).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(SYNC_INTERVAL_MS - 1);
      expect(redis.calls).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(redis.calls).toEqual([
        [
          { key: 'rate:x:0', by: 2, ttlMs: MINUTE },
          { key: 'rate:y:0', by: 1, ttlMs: MINUTE },
        ],
      ]);
      // a small limit: a tenth of 5 is one hit, so each hit is sent without waiting for the interval
      limiter.hit('login', { max: 5, windowMs: MINUTE });
      await vi.advanceTimersByTimeAsync(0);
      expect(redis.calls.at(-1)).toEqual([{ key: 'rate:login:0', by: 1, ttlMs: MINUTE }]);
      // no hits, no traffic
      const sent = redis.calls.length;
      await vi.advanceTimersByTimeAsync(10 * SYNC_INTERVAL_MS);
      expect(redis.calls).toHaveLength(sent);
    } finally {
      limiter.close();
    }
  });

  it('counts alone while Redis does not answer, logs that once, and sends the hits when it answers again', async () => {
    const redis = fakeRedis();
    const { log, lines } = recordingLog();
    const limiter = new ClusterRateLimiter(redis, log, () => 0);
    const limit = { max: 5, windowMs: MINUTE };
    try {
      redis.fail(true);
      const answers: boolean[] = [];
      for (let i = 0; i < 7; i++) {
        answers.push(limiter.hit('k', limit));
        await limiter.flush();
      }
      // the limit holds on this instance's own count meanwhile
      expect(answers).toEqual([true, true, true, true, true, false, false]);
      expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
      expect(redis.counters.size).toBe(0);
      redis.fail(false);
      await limiter.flush();
      expect(redis.counters.get('rate:k:0')?.value).toBe(7);
      expect(lines.at(-1)?.level).toBe('info');
      expect(limiter.hit('k', limit)).toBe(false);
    } finally {
      limiter.close();
    }
  });

  it('starts each window anew, on the same boundaries as the other instances', async () => {
    let now = MINUTE - 10;
    const redis = fakeRedis();
    const { log } = recordingLog();
    const limiter = new ClusterRateLimiter(redis, log, () => now);
    const limit = { max: 2, windowMs: MINUTE };
    try {
      expect([1, 2, 3].map(() => limiter.hit('k', limit))).toEqual([true, true, false]);
      await limiter.flush();
      now = MINUTE;
      expect(limiter.hit('k', limit)).toBe(true);
      await limiter.flush();
      expect(redis.counters.get('rate:k:0')?.value).toBe(3);
      expect(redis.counters.get(`rate:k:${MINUTE}`)?.value).toBe(1);
    } finally {
      limiter.close();
    }
  });

  it('sends nothing once closed', async () => {
    vi.useFakeTimers();
    const redis = fakeRedis();
    const { log } = recordingLog();
    const limiter = new ClusterRateLimiter(redis, log, () => 0);
    limiter.hit('k', { max: 1_000, windowMs: MINUTE });
    limiter.close();
    expect(limiter.hit('k', { max: 1_000, windowMs: MINUTE })).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * SYNC_INTERVAL_MS);
    expect(redis.calls).toHaveLength(0);
  });
});

describe('LocalRateLimiter memory (issue 42)', () => {
  it('keeps at most its cap of counters: windows that are over go first, then the oldest', () => {
    let now = 0;
    const limiter = new LocalRateLimiter(() => now, 100);
    const limit = { max: 1, windowMs: 60_000 };
    for (let i = 0; i < 100; i++) limiter.hit(`ip-${i}`, limit);
    expect(limiter.size).toBe(100);
    // one more caller at the cap: nothing is over yet, so the oldest tenth goes
    limiter.hit('ip-new', limit);
    expect(limiter.size).toBe(91);
    expect(limiter.hit('ip-99', limit)).toBe(false);
    // a minute later every window is over: they all go at the next new caller past the cap
    for (let i = 100; limiter.size < 100; i++) limiter.hit(`ip-${i}`, limit);
    now += 60_000;
    limiter.hit('later', limit);
    expect(limiter.size).toBe(1);
    for (let i = 0; i < 10_000; i++) limiter.hit(`flood-${i}`, limit);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});
