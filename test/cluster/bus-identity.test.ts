// Issue 42, point 9: one cluster, one bus. Two Redis servers and PostgreSQL databases: an instance whose REDIS_URL
// is not the Redis of its database's other instances is refused at start, with the reason; one whose Redis holds
// another cluster's id is refused too; a running instance whose Redis comes to serve another cluster answers /readyz
// 503 with the reason, and 200 again once it is put right; a flushed Redis is given the database's id again. Real
// instances (createServer), real PostgreSQL and Redis servers (the run's, and one started here).
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../server/index.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { startRedis, type ThrowawayRedis } from '../helpers/external-servers.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';
import { eventually } from '../helpers/server.ts';
import { tempDirs } from '../helpers/transfer.ts';

const temp = tempDirs();
let cluster: Cluster;
let otherRedis: ThrowawayRedis;
beforeAll(async () => {
  [cluster, otherRedis] = await Promise.all([startCluster(1), startRedis()]);
});
afterAll(async () => {
  await cluster?.close();
  await otherRedis?.stop();
});

const options = (more: Record<string, unknown>) => ({ port: 0, host: '127.0.0.1', logLevel: 'silent' as const, dataDir: temp('hearth-bus-'), ...more });

async function clusterIdOf(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ cluster_id: string }>('SELECT cluster_id FROM cluster_identity WHERE id = 1')).rows[0]!.cluster_id;
  } finally {
    await client.end();
  }
}

async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url);
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
};

describe('one cluster, one bus (issue 42, point 9)', () => {
  it('refuses an instance whose Redis is not the one its database’s running instances use', async () => {
    const [a] = cluster.instances;
    expect((await readyz(a!.url)).body.checks.cluster).toBe('ok');
    await expect(createServer(options({ databaseUrl: cluster.databaseUrl, masterKeyFile: cluster.masterKeyFile, redisUrl: otherRedis.url }))).rejects.toThrow(
      /REDIS_URL: 1 of the 1 other instances running on this PostgreSQL database is not connected to this Redis .*REDIS_URL must name the Redis/,
    );
    // the refused start wrote nothing to the other Redis, and the running instance stays ready
    expect(await withRedis(otherRedis.url, (r) => r.get('hearth:cluster-id'))).toBeNull();
    expect((await readyz(a!.url)).status).toBe(200);
  });

  it('refuses an instance whose Redis holds another cluster’s id, naming both ids', async () => {
    const server = testPostgres()!;
    const [first, second] = await Promise.all([freshTestDatabase(server), freshTestDatabase(server)]);
    // databases of their own, with ids of their own (the run's databases share one: they share its Redis)
    for (const db of [first, second]) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query('DELETE FROM cluster_identity').finally(() => client.end());
    }
    let firstInstance: Awaited<ReturnType<typeof createServer>> | undefined;
    try {
      firstInstance = await createServer(options({ databaseUrl: first.url, redisUrl: otherRedis.url }));
      const firstId = await clusterIdOf(first.url);
      expect(await withRedis(otherRedis.url, (r) => r.get('hearth:cluster-id'))).toBe(firstId);
      const refused = createServer(options({ databaseUrl: second.url, redisUrl: otherRedis.url }));
      await expect(refused).rejects.toThrow(
        /REDIS_URL: this Redis serves another Hearth cluster \(its cluster id is [\w-]+; this PostgreSQL database's is [\w-]+\)/,
      );
      await refused.catch((error: Error) => {
        expect(error.message).toContain(firstId);
        return undefined;
      });
    } finally {
      await firstInstance?.close();
      await first.drop();
      await second.drop();
    }
  });

  it('a running instance whose Redis comes to hold another id is not ready, with the reason; a flushed Redis gets the id again', async () => {
    // on the Redis started here and a database of its own: the run's Redis is shared with other files' clusters
    const database = await freshTestDatabase(testPostgres()!);
    let instance: Awaited<ReturnType<typeof createServer>> | undefined;
    try {
      await withRedis(otherRedis.url, (redis) => redis.del('hearth:cluster-id'));
      instance = await createServer(options({ databaseUrl: database.url, redisUrl: otherRedis.url }));
      const url = instance.url;
      expect((await readyz(url)).status).toBe(200);
      const clusterId = await clusterIdOf(database.url);
      await withRedis(otherRedis.url, async (redis) => {
        await redis.set('hearth:cluster-id', 'someone-else');
        const notReady = await eventually(async () => {
          const answer = await readyz(url);
          expect(answer.status).toBe(503);
          return answer.body;
        }, 15_000);
        expect(notReady.checks.cluster).toMatch(/^this Redis serves another Hearth cluster \(its cluster id is someone-else; this PostgreSQL database's is /);
        expect(notReady.checks.redis).toBe('ok');
        // a flushed Redis (the key gone): the next check writes the database's id again, and the instance is ready
        await redis.flushall();
        await eventually(async () => expect((await readyz(url)).status).toBe(200), 15_000);
        expect(await redis.get('hearth:cluster-id')).toBe(clusterId);
      });
    } finally {
      await instance?.close();
      await database.drop();
    }
  });
});
