/**
 * Hearth's notion of now: the real time plus an offset that only testing mode moves (`serve --testing`,
 * `hearth exec`, `startHearth`; POST /testing/clock). Every time-dependent rule reads it (user tokens' and
 * permissions' expiry, login links, webhook retries and debounced events, rate-limit windows, the timestamps rows
 * are written with), so a test can make 48 hours pass in a millisecond. What stays on the real time: leases
 * between processes, durations, timeouts of sockets and requests, logs.
 *
 * One offset per process (a module, not a server's state): the delivery worker thread gets it at start and on
 * each change (webhooks/dispatcher.ts). Two in-process servers of one test process share it.
 */

let offsetMs = 0;
const listeners = new Set<(offsetMs: number) => void>();

/** Milliseconds since the epoch, as Hearth sees them: read this instead of Date.now() in time-dependent rules. */
export function currentTime(): number {
  return Date.now() + offsetMs;
}

/** `new Date()` as Hearth sees it. */
export function currentDate(): Date {
  return new Date(currentTime());
}

export const clock = {
  /** How far Hearth's time is ahead of the real time, in milliseconds (0 unless a test advanced it). */
  offsetMs: () => offsetMs,
  /** Sets the offset (not below 0: Hearth's time never runs behind the real time) and tells the listeners. */
  setOffset(next: number) {
    if (!Number.isFinite(next) || next < 0) throw new RangeError('the clock offset is a finite number of milliseconds, at least 0');
    if (next === offsetMs) return;
    offsetMs = next;
    for (const listener of listeners) listener(offsetMs);
  },
  /** Called with the new offset after each change (timers that wait for a time recompute their wait). */
  onChange(listener: (offsetMs: number) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
