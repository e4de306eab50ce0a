// Issue 42, point 9: the failures that end a start follow LOG_FORMAT. With `json` every stderr line of `hearth serve`
// is a JSON object, also for a database that refuses Hearth's queries (drizzle's multi-line "Failed query: …" with
// PostgreSQL's reason as its cause) and a Redis that cannot be reached; the reason underneath is told, never the
// query's parameters. The CLI in a child process, against the run's throwaway PostgreSQL.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHearth, tempDirs } from '../helpers/cli.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';

const dirs = tempDirs();
let database: { url: string; drop(): Promise<void> };
/** The fresh database's URL as a role that may connect but read no table. */
let refusedUrl: string;
const role = `hearth_norights_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const server = testPostgres();
  if (!server) throw new Error('runs under npm run test:pg, which starts PostgreSQL');
  database = await freshTestDatabase(server);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    // it may connect and read the applied migrations, nothing more: the migrations' first statement (CREATE SCHEMA IF
    // NOT EXISTS, through drizzle) is refused
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
    await admin.query(`GRANT USAGE ON SCHEMA drizzle TO ${role}`);
    await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA drizzle TO ${role}`);
  } finally {
    await admin.end();
  }
  const url = new URL(database.url);
  url.username = role;
  url.password = 'pw';
  refusedUrl = url.toString();
});
afterAll(async () => {
  await database?.drop();
  const server = testPostgres();
  if (server) {
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`).finally(() => admin.end());
  }
  dirs.cleanup();
});

/** stderr's lines, each parsed as JSON (a line that is not JSON fails the test, naming it). */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`a stderr line is not JSON: ${line}`);
      }
    });
}

describe('fatal start-up errors follow LOG_FORMAT (issue 42, point 9)', () => {
  it('json: a database that refuses the queries is one JSON line naming PostgreSQL’s reason', async () => {
    const run = await runHearth(['--port', '0', '--data-dir', dirs.make()], { env: { LOG_FORMAT: 'json', DATABASE_URL: refusedUrl } });
    expect(run.code).toBe(1);
    const lines = jsonLines(run.stderr);
    const fatal = lines.at(-1)!;
    expect(fatal).toMatchObject({ level: 'error', exitCode: 1, code: '42501' });
    expect(fatal.msg).toMatch(/^a database query failed: permission denied for database hearth_t_\w+$/);
    expect(fatal.query).toBe('CREATE SCHEMA IF NOT EXISTS "drizzle"');
    expect(run.stderr).not.toContain('params:');
  });

  it('text: the same failure is one line with the reason and the query, not drizzle’s two', async () => {
    const run = await runHearth(['--port', '0', '--data-dir', dirs.make()], { env: { DATABASE_URL: refusedUrl } });
    expect(run.code).toBe(1);
    const line = run.stderr.trim().split('\n').at(-1)!;
    expect(line).toMatch(
      /^hearth: a database query failed: permission denied for database hearth_t_\w+ \(query CREATE SCHEMA IF NOT EXISTS "drizzle"; code 42501\)$/,
    );
    expect(run.stderr).not.toContain('params:');
  });

  it('json: a Redis that cannot be reached, and a database that cannot be reached, are JSON lines too', async () => {
    const redis = await runHearth(['--port', '0', '--data-dir', dirs.make()], {
      env: { LOG_FORMAT: 'json', DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(redis.code).toBe(1);
    const redisLines = jsonLines(redis.stderr);
    expect(redisLines.at(-1)).toMatchObject({ level: 'error', exitCode: 1 });
    expect(redisLines.at(-1)!.msg).toMatch(/^REDIS_URL: Redis cannot be reached \(.*ECONNREFUSED/);

    const unreachable = await runHearth(['--port', '0', '--data-dir', dirs.make()], {
      env: { LOG_FORMAT: 'json', DATABASE_URL: 'postgres://hearth@127.0.0.1:1/hearth' },
    });
    expect(unreachable.code).toBe(1);
    const dbLines = jsonLines(unreachable.stderr);
    expect(dbLines.at(-1)).toMatchObject({ level: 'error', exitCode: 1 });
    expect(String(dbLines.at(-1)!.msg)).toContain('ECONNREFUSED');
  });

  it('json: a usage error given in a config-less run is a JSON line as well', async () => {
    const run = await runHearth(['--port', 'not-a-port', '--data-dir', dirs.make()], { env: { LOG_FORMAT: 'json' } });
    expect(run.code).toBe(2);
    expect(jsonLines(run.stderr).at(-1)).toMatchObject({ level: 'error', exitCode: 2 });
  });
});
