import { join } from 'node:path';
import type { ConfigOverrides } from '../../server/config.ts';
import { freshTestDatabase, testPostgres } from './pg-database.ts';
import { startTestServer, type TestServer } from './server.ts';
import { tempDirs } from './transfer.ts';

/** The throwaway Redis of `npm run test:pg` (external-servers-setup.ts). */
export const testRedis = (): string | undefined => process.env.HEARTH_TEST_REDIS || undefined;

export interface Cluster {
  /** The instances, each a test server of its own (its own data dir), over one database and one Redis. */
  instances: TestServer[];
  databaseUrl: string;
  redisUrl: string;
  /** The master key file every instance reads (the first instance's, made at its start). */
  masterKeyFile: string;
  /** Starts one more instance of the cluster. */
  add(overrides?: ConfigOverrides): Promise<TestServer>;
  close(): Promise<void>;
}

/**
 * `count` Hearth instances in this process over a fresh PostgreSQL database of the run's server and the run's Redis,
 * sharing the first instance's master key as a cluster's instances share a mounted key file (README, "Run as a
 * cluster"). Each has its own Redis connections and instance id, as separate processes would.
 */
export async function startCluster(count: number, overrides: ConfigOverrides = {}): Promise<Cluster> {
  const postgres = testPostgres();
  const redisUrl = testRedis();
  if (!postgres || !redisUrl) throw new Error('cluster tests run under npm run test:pg, which starts PostgreSQL and Redis');
  const database = await freshTestDatabase(postgres);
  const temp = tempDirs();
  const instances: TestServer[] = [];
  const base = { databaseUrl: database.url, redisUrl, ...overrides };
  const first = await startTestServer({ ...base, dataDir: temp('hearth-cluster-') });
  instances.push(first);
  const masterKeyFile = join(first.dataDir, 'master.key');
  const cluster: Cluster = {
    instances,
    databaseUrl: database.url,
    redisUrl,
    masterKeyFile,
    async add(more = {}) {
      const instance = await startTestServer({ ...base, masterKeyFile, ...more, dataDir: temp('hearth-cluster-') });
      instances.push(instance);
      return instance;
    },
    async close() {
      // the first instance last: the others read its key file
      for (const instance of [...instances].reverse()) await instance.close().catch(() => undefined);
      await database.drop();
    },
  };
  try {
    while (instances.length < count) await cluster.add();
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}
