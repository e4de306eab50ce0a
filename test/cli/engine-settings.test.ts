// DATABASE_URL selects the PostgreSQL engine (its behaviour is tested by `npm run test:pg`, which runs the API suite
// on it); what a user meets without a PostgreSQL is tested here: a database that cannot be reached stops the start
// with a message that names it (its password hidden), and nothing goes to SQLite instead. REDIS_URL without
// DATABASE_URL is refused: instances of a cluster share a PostgreSQL database, never a data dir's SQLite. The commands that work on
// SQLite's files (backup, restore, doctor) refuse on PostgreSQL, before connecting to anything, pointing at pg_dump.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

  it('REDIS_URL without DATABASE_URL: refuses to start, naming both settings, and writes no database', async () => {
    const dataDir = dirs.make();
    const run = await runHearth(['--port', '0', '--data-dir', dataDir], { env: { REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('REDIS_URL is set without DATABASE_URL: instances of a cluster share a PostgreSQL database');
    expect(existsSync(join(dataDir, 'hearth.db'))).toBe(false);
  });

  describe("backup, restore, doctor and seed on PostgreSQL: refused, naming DATABASE_URL and PostgreSQL's own tools, and nothing touched", () => {
    // No PostgreSQL runs here: the refusal comes before any connection (a URL that cannot be reached would be
    // named as such otherwise), and before the data dir's SQLite files are read or written.
    const url = async () => `postgres://hearth:s3cret@127.0.0.1:${await freePort()}/hearth`;
    const dataDirWithFiles = () => {
      const dataDir = dirs.make();
      writeFileSync(join(dataDir, 'hearth.db'), 'not touched');
      writeFileSync(join(dataDir, 'master.key'), 'not touched either');
      return dataDir;
    };
    const untouched = (dataDir: string) => {
      expect(readdirSync(dataDir).sort()).toEqual(['hearth.db', 'master.key']);
      expect(readFileSync(join(dataDir, 'hearth.db'), 'utf8')).toBe('not touched');
    };
    const refusal = (run: { code: number; stderr: string; stdout: string }, command: string) => {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`hearth ${command} works on the SQLite files of the data dir, but DATABASE_URL`);
      expect(run.stderr).toContain('runs Hearth on PostgreSQL');
      expect(run.stderr).not.toContain('s3cret');
      expect(run.stderr).not.toContain('could not connect');
    };

    it('seed: points at seeding SQLite and moving it up, and seeds nothing', async () => {
      const dataDir = dataDirWithFiles();
      const run = await runHearth(['seed', '--data-dir', dataDir], { env: { DATABASE_URL: await url() } });
      refusal(run, 'seed');
      expect(run.stderr).toContain('hearth export and hearth import');
      untouched(dataDir);
    });

    it('backup: points at pg_dump, and makes no backup dir', async () => {
      const dataDir = dataDirWithFiles();
      const out = join(dirs.make(), 'backup');
      const run = await runHearth(['backup', '--data-dir', dataDir, '--out', out], { env: { DATABASE_URL: await url() } });
      refusal(run, 'backup');
      expect(run.stderr).toContain('pg_dump');
      expect(existsSync(out)).toBe(false);
      untouched(dataDir);
    });

    it('restore: points at pg_restore, and leaves the data dir as it was', async () => {
      const dataDir = dataDirWithFiles();
      const from = dirs.make();
      writeFileSync(join(from, 'hearth.db'), 'a backup');
      const run = await runHearth(['restore', '--data-dir', dataDir, '--from', from, '--force'], { env: { DATABASE_URL: await url() } });
      refusal(run, 'restore');
      expect(run.stderr).toContain('pg_restore');
      untouched(dataDir);
    });

    it("doctor: points at PostgreSQL's tools instead of checking SQLite files that are not the data", async () => {
      const dataDir = dataDirWithFiles();
      const run = await runHearth(['doctor', '--data-dir', dataDir, '--json'], { env: { DATABASE_URL: await url() } });
      refusal(run, 'doctor');
      expect(run.stderr).toMatch(/pg_isready.*pg_dump \/ pg_restore/);
      untouched(dataDir);
    });

    it('with DATABASE_URL unset, doctor checks the SQLite files as before (here finding them broken)', async () => {
      const dataDir = dataDirWithFiles();
      const doctor = await runHearth(['doctor', '--data-dir', dataDir], { env: { DATABASE_URL: '' } });
      expect(doctor.code).toBe(1);
      expect(doctor.stderr).not.toContain('DATABASE_URL');
      expect(doctor.stdout).toMatch(/fail {2}database {4}.*hearth\.db cannot be read/);
    });
  });
});
