import type { TestProject } from 'vitest/node';
import { createPgEngine } from '../../server/db/pg/engine.ts';
import { startPostgres, startRedis, type ThrowawayPostgres, type ThrowawayRedis } from './external-servers.ts';
import { TEMPLATE_DATABASE, TEST_RUN_CLUSTER_ID } from './pg-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared throwaway PostgreSQL's URL (its superuser, database `hearth`). */
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * A vitest globalSetup module (for `npm run test:pg`, issue 31): one throwaway PostgreSQL and one Redis for the
 * whole run, started before the first test file and stopped after the last. A URL already set in DATABASE_URL /
 * REDIS_URL is used as it is (a server the caller runs) and nothing is started for it.
 *
 * Workers get them by `inject('databaseUrl')` / `inject('redisUrl')`, or from HEARTH_TEST_POSTGRES /
 * HEARTH_TEST_REDIS, which they inherit: not DATABASE_URL / REDIS_URL, which every server a test starts would read,
 * so that all of them would share one database. Test servers each get a database of their own instead, copied
 * from a template migrated here once (pg-database.ts).
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
  try {
    await prepareTemplate(databaseUrl);
  } catch (error) {
    await Promise.all([postgres?.stop(), redis?.stop()]);
    throw error;
  }
  process.env.HEARTH_TEST_POSTGRES = databaseUrl;
  process.env.HEARTH_TEST_REDIS = redisUrl;
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    await Promise.all([postgres?.stop(), redis?.stop()]);
    delete process.env.HEARTH_TEST_POSTGRES;
    delete process.env.HEARTH_TEST_REDIS;
  };
}

/** The template test databases are copied from: made (anew) and migrated by the PostgreSQL engine. */
async function prepareTemplate(serverUrl: string): Promise<void> {
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${TEMPLATE_DATABASE}`;
  const engine = createPgEngine({ url: url.toString() });
  try {
    await engine.migrate();
  } finally {
    await engine.close();
  }
  // The run's test databases share its one Redis, so they share a cluster id too: an instance refuses a Redis that
  // holds another cluster's (server/cluster/identity.ts). test/cluster/bus-identity.test.ts gives its databases ids
  // of their own.
  const template = new pg.Client({ connectionString: url.toString() });
  await template.connect();
  try {
    await template.query('INSERT INTO cluster_identity (id, cluster_id, created_at) VALUES (1, $1, $2)', [TEST_RUN_CLUSTER_ID, Date.now()]);
  } finally {
    await template.end();
  }
}
