// A server without REDIS_URL holds its PostgreSQL database alone (issue 31): a second server on the same database
// refuses to start, saying what is missing, whether it comes alone or as an instance of a cluster (REDIS_URL), while
// the CLI's admin commands still work beside the running one; once the first stops (or dies: PostgreSQL drops its
// session lock with its connection), a server starts again on the database. Instances of a cluster share it
// (test/cluster/), and refuse a Redis they cannot reach.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../server/index.ts';
import { CLEAN_ENV } from '../cli/data-dirs.ts';
import { runHearth } from '../helpers/cli.ts';
import { testRedis } from '../helpers/cluster.ts';
import { freePort } from '../helpers/external-servers.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDirs } from '../helpers/transfer.ts';

const temp = tempDirs();
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let first: TestServer;

beforeAll(async () => {
  const server = testPostgres();
  if (!server) throw new Error('test/pg runs under npm run test:pg, which starts PostgreSQL (HEARTH_TEST_POSTGRES)');
  database = await freshTestDatabase(server);
  first = await startTestServer({ databaseUrl: database.url, dataDir: temp('hearth-instances-') });
});
afterAll(async () => {
  await first?.close();
  await database?.drop();
});

describe('instances of one PostgreSQL database', () => {
  it('refuses a second server while one runs, naming what is missing, and the first goes on', async () => {
    const secondDir = temp('hearth-instances-');
    await expect(
      createServer({
        port: 0,
        host: '127.0.0.1',
        logLevel: 'silent',
        databaseUrl: database.url,
        dataDir: secondDir,
        masterKeyFile: `${first.dataDir}/master.key`,
      }),
    ).rejects.toThrow(
      /another Hearth server runs on this PostgreSQL database: instances that share one database need Redis between them\. Start every instance with the same REDIS_URL/,
    );
    // nor as an instance of a cluster: the lone server holds the database alone
    await expect(
      createServer({
        port: 0,
        host: '127.0.0.1',
        logLevel: 'silent',
        databaseUrl: database.url,
        redisUrl: testRedis(),
        dataDir: temp('hearth-instances-'),
        masterKeyFile: `${first.dataDir}/master.key`,
      }),
    ).rejects.toThrow(/a Hearth server without REDIS_URL runs on this PostgreSQL database and holds it alone/);
    expect((await first.callK('/v2/organizations/get', {})).status).toBe(200);
  });

  it('refuses a REDIS_URL it cannot reach, naming it', async () => {
    const other = await freshTestDatabase(testPostgres() as string);
    try {
      await expect(
        createServer({
          port: 0,
          host: '127.0.0.1',
          logLevel: 'silent',
          databaseUrl: other.url,
          redisUrl: `redis://127.0.0.1:${await freePort()}`,
          dataDir: temp('hearth-instances-'),
        }),
      ).rejects.toThrow(/REDIS_URL: Redis cannot be reached/);
    } finally {
      await other.drop();
    }
  });

  it('an admin command works beside the server, but refuses to migrate the schema beneath an older one', async () => {
    const list = () => runHearth(['workspace', 'list', '--data-dir', first.dataDir, '--json'], { env: { ...CLEAN_ENV, DATABASE_URL: database.url } });
    const works = await list();
    expect(works.code, works.stderr).toBe(0);
    expect(JSON.parse(works.stdout)).toHaveLength(1);
    // the running server stands for an older Hearth: its database's journal lacks the newest migration
    const journal = new pg.Client({ connectionString: database.url });
    await journal.connect();
    const newest = (await journal.query('SELECT id, hash, created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1')).rows[0];
    await journal.query('DELETE FROM drizzle.__drizzle_migrations WHERE id = $1', [newest.id]);
    try {
      const refused = await list();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('A Hearth server of an older version runs on this PostgreSQL database and its schema needs 1 migration(s)');
      // nothing migrated: the journal still lacks it
      expect((await journal.query('SELECT 1 FROM drizzle.__drizzle_migrations WHERE id = $1', [newest.id])).rowCount).toBe(0);
    } finally {
      await journal.query('INSERT INTO drizzle.__drizzle_migrations (id, hash, created_at) VALUES ($1, $2, $3)', [newest.id, newest.hash, newest.created_at]);
      await journal.end();
    }
  });

  it("shows another process's write on the next read: the response cache hears of it (every table's change trigger)", async () => {
    await first.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
    await first.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'doc',
      notificationId: 'n1',
      actionUser: { userId: 'sys' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: 'as written',
      notifyAll: false,
      notifyUsers: [{ userId: 'ann' }],
    });
    const body = async () =>
      dataOf<Array<{ displayBodyMessage?: string }>>(await first.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc' }))[0]
        ?.displayBodyMessage;
    // read twice: the second answer may come from the cache
    expect([await body(), await body()]).toEqual(['as written', 'as written']);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query("UPDATE notifications SET body = 'changed elsewhere' WHERE id = 'n1'");
    } finally {
      await other.end();
    }
    await eventually(async () => expect(await body()).toBe('changed elsewhere'), 5_000);
  });

  it('starts a server again once the first has stopped', async () => {
    await first.restart();
    expect((await first.callK('/v2/organizations/get', {})).status).toBe(200);
  });
});
