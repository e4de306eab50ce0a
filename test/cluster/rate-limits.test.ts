// Issue 31: rate limits are counted across the instances of a cluster (http/rate-limit.ts, ClusterRateLimiter).
// Each instance answers at once from the cluster-wide count Redis last gave plus its own hits since, and syncs its
// hits with Redis in the background; a window then accepts the limit plus, at most, the hits each instance accepts
// within one sync interval. Two lone servers would each accept the whole limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRateLimiter, LocalRateLimiter, SYNC_INTERVAL_MS } from '../../server/http/rate-limit.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { call, eventually, startTestServer, type TestServer } from '../helpers/server.ts';

const LIMIT = 20;
// windows start at multiples of their length since the epoch: one this long holds the whole test wherever the clock is
const rateLimits = { workspaceOperations: { max: LIMIT, windowMs: 1e12 } };

let cluster: Cluster;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  cluster = await startCluster(2, { rateLimits });
  [a, b] = cluster.instances as [TestServer, TestServer];
});
afterAll(() => cluster?.close());

const limiterOf = (t: TestServer) => t.server.app.limiter;
/** One workspace operation on `t` with the workspace's headers: its status (200, or 429 once refused). */
const get = async (t: TestServer, headers: Record<string, string>) => (await call(t.url, '/v2/workspace/get', {}, headers)).status;

describe('rate limits across instances', () => {
  it('each instance of a cluster counts with the cluster limiter', () => {
    expect(limiterOf(a)).toBeInstanceOf(ClusterRateLimiter);
    expect(limiterOf(b)).toBeInstanceOf(ClusterRateLimiter);
  });

  it('calls spread over two instances share one limit: with a sync after every call, one call past it is the overshoot', async () => {
    const workspace = await createWorkspace(a);
    // createWorkspace's own call (authtokens/get) was the first of the window
    let accepted = 1;
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const instance = i % 2 === 0 ? b : a;
      const status = await get(instance, workspace.headersW);
      statuses.push(status);
      if (status === 200) accepted++;
      await (limiterOf(instance) as ClusterRateLimiter).flush();
    }
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    // each instance learns the other's calls with the answer to its own sync: it answers its next call without the
    // other's last one, which is the overshoot (one call here); two lone servers would have accepted 2 × LIMIT
    expect(accepted).toBe(LIMIT + 1);
    expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
  });

  it('at the pace of sequential calls, the total stays within the documented overshoot, and both instances refuse after a sync', async () => {
    const workspace = await createWorkspace(b);
    let accepted = 1;
    for (let i = 0; i < 3 * LIMIT; i++) if ((await get(i % 2 === 0 ? a : b, workspace.headersW)) === 200) accepted++;
    expect(accepted).toBeGreaterThanOrEqual(LIMIT);
    // the hits each instance accepts in one sync interval (a tenth of the limit sends at once: 2 hits here, and the
    // round trip's) are the overshoot; far below the 2 × LIMIT two lone servers would accept
    expect(accepted).toBeLessThanOrEqual(LIMIT + LIMIT / 2);
    await new Promise((resolve) => setTimeout(resolve, 2 * SYNC_INTERVAL_MS));
    await eventually(async () => {
      expect(await get(a, workspace.headersW)).toBe(429);
      expect(await get(b, workspace.headersW)).toBe(429);
    });
  });

  it('a lone server keeps its limit in memory, exactly as before', async () => {
    const lone = await startTestServer({ rateLimits });
    try {
      expect(limiterOf(lone)).toBeInstanceOf(LocalRateLimiter);
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 3; i++) statuses.push(await lone.callW('/v2/workspace/get', {}).then((res) => res.status));
      expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429, 429, 429]);
    } finally {
      await lone.close();
    }
  });
});
