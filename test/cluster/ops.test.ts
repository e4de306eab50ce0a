// Issue 31: GET /readyz of a cluster instance asks Redis too (http/ops-endpoints.ts): an instance that cannot reach
// it is not ready (its rooms' updates would not reach the other instances), while it stays alive and keeps
// answering, with rate limits counted on its own meanwhile. A lone server's answer has no Redis check
// (test/api/ops-endpoints.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { startRedis } from '../helpers/external-servers.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';
import { startTestServer } from '../helpers/server.ts';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster(1);
});
afterAll(() => cluster?.close());

describe('GET /readyz of a cluster instance', () => {
  it('is ready when the database and Redis answer, and says so for Redis and the cluster bus', async () => {
    const res = await fetch(`${cluster.instances[0]?.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'ok', cluster: 'ok' } });
  });

  it('answers 503 naming Redis once it cannot be reached; the instance still serves calls and closes', async () => {
    const postgres = testPostgres();
    if (!postgres) throw new Error('cluster tests run under npm run test:pg, which starts PostgreSQL');
    const database = await freshTestDatabase(postgres);
    const redis = await startRedis();
    let redisStopped = false;
    // windows start at multiples of their length since the epoch: one this long holds the whole test
    const rateLimits = { workspaceOperations: { max: 3, windowMs: 1e12 } };
    const instance = await startTestServer({ databaseUrl: database.url, redisUrl: redis.url, rateLimits });
    try {
      expect((await fetch(`${instance.url}/readyz`)).status).toBe(200);
      await redis.stop();
      redisStopped = true;
      const res = await fetch(`${instance.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('not ready');
      expect(body.checks).toMatchObject({ database: 'ok', migrations: 'ok' });
      expect(body.checks.redis).toMatch(/^unreachable: /);
      // alive all the same, and calls are answered, the workspace's rate limit counted by this instance meanwhile
      expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await instance.callW('/v2/workspace/get', {})).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await instance.close();
      if (!redisStopped) await redis.stop();
      await database.drop();
    }
  });
});
