import type { TestProject } from 'vitest/node';
import { startPostgres, startRedis, type ThrowawayPostgres, type ThrowawayRedis } from './external-servers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared throwaway PostgreSQL's URL (its superuser, database `hearth`). */
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * A vitest globalSetup module (for `npm run test:pg`, issue 31): one throwaway PostgreSQL and one Redis for the
 * whole run, started before the first test file and stopped after the last. Workers read them with
 * `inject('databaseUrl')` / `inject('redisUrl')`, or from DATABASE_URL / REDIS_URL, which the workers inherit.
 * A URL already set in the environment is used as it is (a server the caller runs) and nothing is started for it.
 * Test files sharing the server should each work in a database of their own (`createDatabase`).
 */
export default async function setup(project: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  const started = await Promise.allSettled([
    process.env.DATABASE_URL ? Promise.resolve(undefined) : startPostgres(),
    process.env.REDIS_URL ? Promise.resolve(undefined) : startRedis(),
  ]);
  const [postgres, redis] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined)) as [ThrowawayPostgres?, ThrowawayRedis?];
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all([postgres?.stop(), redis?.stop()]);
    throw failed.reason;
  }
  const databaseUrl = postgres?.url ?? process.env.DATABASE_URL!;
  const redisUrl = redis?.url ?? process.env.REDIS_URL!;
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = redisUrl;
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    await Promise.all([postgres?.stop(), redis?.stop()]);
    if (postgres) delete process.env.DATABASE_URL;
    if (redis) delete process.env.REDIS_URL;
  };
}
