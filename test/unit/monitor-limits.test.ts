// The request monitor's bounds (issue 42, point 5) with a clock of the test's: calls are dropped by age, the global
// cap forgets unwatched workspaces before it touches watched ones, and a workspace's cap drops its oldest bodies first.
import { describe, expect, it } from 'vitest';
import { createMonitor } from '../../server/admin/monitor.ts';

const KB = 1024;
const summary = (workspaceId: string, at: number) => ({
  at,
  method: 'POST',
  path: '/v2/users/add',
  status: 200,
  durationMs: 1,
  caller: 'key',
  requestId: `r-${at}-${Math.random()}`,
  workspaceId,
});
const body = (size: number) => () => ({ request: 'q'.repeat(size), response: 'a'.repeat(size) });
const noWatcher = { send: () => undefined, end: () => undefined };

describe('request monitor limits', () => {
  it('drops calls older than maxAgeMs, and the unwatched workspaces left with none', () => {
    let now = 1_000_000;
    const monitor = createMonitor({ totalBytes: 10 * 1024 * KB, workspaceBytes: 1024 * KB, closeGraceMs: 1000, maxAgeMs: 60_000 }, () => now);
    monitor.record(summary('old', now));
    monitor.record(summary('both', now));
    now += 50_000;
    monitor.record(summary('both', now));
    now += 20_000;
    monitor.sweep();
    expect(monitor.recent('old')).toEqual([]);
    expect(monitor.usage().byWorkspace.has('old')).toBe(false);
    expect(monitor.recent('both').map((c) => c.at)).toEqual([now - 20_000]);
    monitor.endAll();
  });

  it('keeps a workspace under its cap by dropping its oldest bodies first, and the summaries stay', () => {
    const monitor = createMonitor({ totalBytes: 10 * 1024 * KB, workspaceBytes: 100 * KB, closeGraceMs: 1000, maxAgeMs: 3_600_000 });
    const stop = monitor.watch('w', noWatcher);
    for (let i = 0; i < 10; i++) monitor.record(summary('w', i), body(10 * KB));
    const calls = monitor.recent('w');
    expect(calls).toHaveLength(10);
    expect(monitor.usage().bytes).toBeLessThanOrEqual(100 * KB + 10 * KB);
    expect(monitor.usage().byWorkspace.get('w')!.bytes).toBeLessThanOrEqual(100 * KB);
    // the newest keep their bodies, the oldest lost them
    expect(calls.at(-1)?.request).toHaveLength(10 * KB);
    expect(calls[0]?.request).toBeUndefined();
    stop();
    monitor.endAll();
  });

  it('forgets unwatched workspaces before it drops the bodies of watched ones past the global cap', () => {
    const monitor = createMonitor({ totalBytes: 200 * KB, workspaceBytes: 150 * KB, closeGraceMs: 1000, maxAgeMs: 3_600_000 });
    for (let i = 0; i < 40; i++) monitor.record(summary(`idle-${i}`, i));
    const stop = monitor.watch('busy', noWatcher);
    for (let i = 0; i < 8; i++) monitor.record(summary('busy', i), body(10 * KB));
    const usage = monitor.usage();
    expect(usage.bytes).toBeLessThanOrEqual(200 * KB);
    expect(usage.byWorkspace.get('busy')?.calls).toBe(8);
    // its own cap (150 KB) took the oldest call's bodies; the global cap took only idle workspaces, oldest first
    expect(usage.byWorkspace.get('busy')?.bodyBytes).toBe(7 * 20 * KB);
    expect(usage.workspaces).toBeLessThan(41);
    expect(usage.byWorkspace.has('idle-0')).toBe(false);
    expect(monitor.recent('idle-39')).toHaveLength(1);
    expect(monitor.recent('busy').at(-1)?.response).toHaveLength(10 * KB);
    stop();
    monitor.endAll();
  });
});
