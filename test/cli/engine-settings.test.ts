// DATABASE_URL selects the PostgreSQL engine (its behaviour is tested by `npm run test:pg`, which runs the API suite
// on it); what a user meets without a PostgreSQL is tested here: a database that cannot be reached stops the start
// with a message that names it (its password hidden), and nothing goes to SQLite instead. REDIS_URL is refused
// until Hearth speaks to Redis, so that nobody believes instances share what they do not.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/external-servers.ts';
import { runHearth, tempDirs } from '../helpers/cli.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('DATABASE_URL and REDIS_URL', () => {
  it('DATABASE_URL that cannot be reached: the start stops, naming the database but not its password, and no SQLite is made', async () => {
    const dataDir = dirs.make();
    const port = await freePort();
    const run = await runHearth(['--port', '0', '--data-dir', dataDir], { env: { DATABASE_URL: `postgres://hearth:s3cret@127.0.0.1:${port}/hearth` } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`could not connect to the PostgreSQL database postgres://hearth:***@127.0.0.1:${port}/hearth`);
    expect(run.stderr).not.toContain('s3cret');
    expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
  });

  it('DATABASE_URL that is not a PostgreSQL URL: refused before anything starts', async () => {
    const dataDir = dirs.make();
    const run = await runHearth(['--port', '0', '--data-dir', dataDir], { env: { DATABASE_URL: 'mysql://127.0.0.1/hearth' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('DATABASE_URL');
    expect(run.stderr).toContain('postgres://');
    expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
  });

  it('REDIS_URL: refuses to start, naming the setting, and writes no database', async () => {
    const dataDir = dirs.make();
    const run = await runHearth(['--port', '0', '--data-dir', dataDir], { env: { REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('REDIS_URL is set, but this build of Hearth does not use Redis yet');
    expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
  });
});
