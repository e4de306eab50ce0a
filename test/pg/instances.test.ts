// One server instance per PostgreSQL database until Redis carries what instances tell each other (issue 31): a
// second server on the same database refuses to start, saying why, while the CLI's admin commands still work beside
// the running one; once the first stops (or dies: PostgreSQL drops its session lock with its connection), a server
// starts again on the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../server/index.ts';
import { freshTestDatabase, testPostgres } from '../helpers/pg-database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
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
    ).rejects.toThrow(/another Hearth server runs on this PostgreSQL database: several instances of one database need Redis between them \(REDIS_URL\)/);
    expect((await first.callK('/v2/organizations/get', {})).status).toBe(200);
  });

  it('starts a server again once the first has stopped', async () => {
    await first.restart();
    expect((await first.callK('/v2/organizations/get', {})).status).toBe(200);
  });
});
