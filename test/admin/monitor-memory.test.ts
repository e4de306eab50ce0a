// Issue 42, point 5: the request monitor's memory is bounded. Many workspaces watched at once, each sending calls with
// large bodies, stay under the configured caps (the monitor's own accounting, not the process's RSS), and a closed
// stream's bodies are dropped after the grace period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { call, eventually, startTestServer, type TestServer } from '../helpers/server.ts';

const MB = 1024 * 1024;
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ monitor: { totalMb: 2, workspaceMb: 0.5, closeGraceMs: 300 } });
});
afterAll(() => t.close());

/** Opens the workspace's live feed as the UI does; resolves once connected. */
async function watch(cookie: string) {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/admin/api/requests/stream`, { headers: { cookie }, signal: controller.signal });
  const reader = res.body!.getReader();
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (new TextDecoder().decode(value).includes(': connected')) connected();
      }
    } catch {
      // aborted
    }
  })();
  await ready;
  return () => controller.abort();
}

/** users/add with about 100 KB of names and photo URLs: its request body is kept (cut at 64 KiB) while the workspace is watched. */
const bigCall = (headers: Record<string, string>, n: number) =>
  call(
    t.url,
    '/v2/users/add',
    {
      organizationId: `org-${n}`,
      users: Array.from({ length: 40 }, (_, i) => ({ userId: `u${i}`, name: `${'x'.repeat(450)}${i}`, photoUrl: `https://example.com/${'p'.repeat(1900)}` })),
    },
    headers,
  );

describe('request monitor memory (issue 42)', () => {
  it('keeps many watched workspaces with big bodies under the per-workspace and global caps; a closed stream loses its bodies', async () => {
    const monitor = t.server.app.monitor;
    const workspaces = await Promise.all(Array.from({ length: 8 }, () => createWorkspace(t)));
    const stops = await Promise.all(workspaces.map(async (w) => watch(await adminCookie(t, w.workspaceId))));
    try {
      let peak = 0;
      for (let round = 0; round < 12; round++) {
        const answers = await Promise.all(workspaces.map((w) => bigCall(w.headersK, round)));
        for (const a of answers) expect(a.status).toBe(200);
        const usage = monitor.usage();
        peak = Math.max(peak, usage.bytes);
        expect(usage.bytes).toBeLessThanOrEqual(2 * MB);
        for (const w of workspaces) expect(usage.byWorkspace.get(w.workspaceId)?.bytes ?? 0).toBeLessThanOrEqual(0.5 * MB);
      }
      // without the caps the 96 calls' request bodies alone would hold about 6 MB
      const usage = monitor.usage();
      expect(peak).toBeGreaterThan(1.5 * MB);
      expect(usage.bodyBytes).toBeGreaterThan(MB);
      // every call is still listed (bodies go before summaries)
      for (const w of workspaces) expect(usage.byWorkspace.get(w.workspaceId)?.calls).toBeGreaterThanOrEqual(12);
      // the newest call of a watched workspace keeps its bodies
      const newest = monitor.recent(workspaces[0]!.workspaceId).at(-1);
      expect(newest?.request?.length).toBeGreaterThan(60_000);
    } finally {
      for (const stop of stops.slice(0, 4)) stop();
    }
    // the four closed workspaces' bodies are dropped after the grace; the watched ones keep theirs
    await eventually(() => {
      const usage = monitor.usage();
      for (const w of workspaces.slice(0, 4)) expect(usage.byWorkspace.get(w.workspaceId)?.bodyBytes).toBe(0);
    });
    const usage = monitor.usage();
    for (const w of workspaces.slice(4)) expect(usage.byWorkspace.get(w.workspaceId)?.bodyBytes).toBeGreaterThan(0);
    for (const w of workspaces.slice(0, 4)) expect(usage.byWorkspace.get(w.workspaceId)?.calls).toBeGreaterThanOrEqual(12);
    for (const stop of stops.slice(4)) stop();
  });
});
