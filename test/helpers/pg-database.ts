// The PostgreSQL run of the API suite (`npm run test:pg`): its globalSetup (external-servers-setup.ts) starts one
// PostgreSQL and hands workers its URL in HEARTH_TEST_POSTGRES; every test server then runs on a database of its
// own, copied from a migrated template (CREATE DATABASE … TEMPLATE copies files: far faster than migrating anew),
// and dropped when the server is closed. Under `npm test` the variable is unset and servers run on SQLite.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEMPLATE_DATABASE = 'hearth_template';
/** The cluster id of every test database (the template's): they share the run's one Redis (cluster/identity.ts). */
export const TEST_RUN_CLUSTER_ID = 'hearth-test-run';

/** The PostgreSQL server test servers run on, when the suite runs on PostgreSQL. */
export const testPostgres = (): string | undefined => process.env.HEARTH_TEST_POSTGRES || undefined;

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh database for one test server: its URL, and how to drop it once the server is closed. */
export async function freshTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hearth_t_${randomBytes(6).toString('hex')}`;
  // copying a template fails while anything else is connected to it; only another copy can be, for an instant
  for (let attempt = 1; ; attempt++) {
    try {
      await onServer(serverUrl, `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
      break;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
