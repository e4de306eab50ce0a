import type { RateLimit } from '../config.ts';

/**
 * Fixed-window counters kept in memory: enough for one process guarding a local backend. A window's
 * counter is dropped once the window has passed, so memory stays proportional to recent callers.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one hit for `key` and tells whether it is still within `limit`. */
  hit(key: string, limit: RateLimit): boolean {
    const now = this.now();
    this.sweep(now, limit.windowMs);
    const current = this.windows.get(key);
    if (!current || now - current.start >= limit.windowMs) {
      this.windows.set(key, { start: now, count: 1 });
      return true;
    }
    current.count += 1;
    return current.count <= limit.max;
  }

  private sweep(now: number, windowMs: number) {
    if (now - this.lastSweep < windowMs || this.windows.size < 1024) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (now - window.start >= windowMs * 10) this.windows.delete(key);
  }
}
