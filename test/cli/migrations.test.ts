import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startHearth, tempDirs } from '../helpers/cli.ts';
import { call } from '../helpers/server.ts';
import { addFutureMigration, appliedMigrations, CLEAN_ENV, dataDirWithMigrations, journal } from './data-dirs.ts';

const temp = tempDirs();
afterAll(() => temp.cleanup());

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('schema migrations at start', () => {
  it('migrates a data dir made by an older Hearth, after a backup of it, and backs up only when something is pending', async () => {
    const known = journal().length;
    const keep = 3;
    expect(known).toBeGreaterThan(keep);
    const scratch = temp.make();
    const dataDir = join(scratch, 'data');
    dataDirWithMigrations(dataDir, scratch, keep);
    const before = digest(join(dataDir, 'hearth.db'));

    const doctor = await runHearth(['doctor', '--data-dir', dataDir, '--port', '0', '--json'], { env: CLEAN_ENV });
    const schema = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; message: string }[] }).checks.find((c) => c.name === 'schema');
    expect(schema).toMatchObject({ status: 'warn', message: expect.stringContaining(`${known - keep} of ${known} migrations pending`) });
    expect(doctor.code).toBe(0);

    // an admin command does not migrate beneath a running (older) server: the lock names a live process (this one)
    writeFileSync(join(dataDir, 'server.lock'), JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:1' }));
    const beneath = await runHearth(['workspace', 'list', '--data-dir', dataDir], { env: CLEAN_ENV });
    expect(beneath).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`of an older version runs on ${dataDir} and its schema needs ${known - keep} migration(s)`),
    });
    expect(digest(join(dataDir, 'hearth.db'))).toBe(before);
    rmSync(join(dataDir, 'server.lock'));

    const server = await startHearth(['--port', '0', '--data-dir', dataDir], { env: { ...CLEAN_ENV, LOG_LEVEL: 'info' } });
    try {
      const ping = await call(server.url, '/v2/ping', {});
      expect(ping.status).toBe(200);
      expect(server.output()).toMatch(/Schema upgrade: \d+ migrations? to apply; backed up the data dir first backup=.*pre-migrate-/);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    expect(appliedMigrations(join(dataDir, 'hearth.db'))).toBe(known);
    const backups = readdirSync(join(dataDir, 'backups'));
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^pre-migrate-\d{4}-\d\d-\d\dT/);
    const backup = join(dataDir, 'backups', backups[0]!);
    // the backup is the database as it was: the old schema, the same content, with its key and a manifest
    expect(appliedMigrations(join(backup, 'hearth.db'))).toBe(keep);
    expect(JSON.parse(readFileSync(join(backup, 'manifest.json'), 'utf8'))).toMatchObject({ format: 1, migrations: keep });
    expect(readFileSync(join(backup, 'master.key'), 'utf8')).toBe(readFileSync(join(dataDir, 'master.key'), 'utf8'));
    expect(before).not.toBe(digest(join(dataDir, 'hearth.db')));

    // a second start has nothing to migrate and takes no backup
    const again = await startHearth(['--port', '0', '--data-dir', dataDir], { env: CLEAN_ENV });
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(again.output()).not.toContain('Schema upgrade');
    expect(readdirSync(join(dataDir, 'backups'))).toHaveLength(1);
  }, 180_000);

  it('refuses a data dir made by a newer Hearth, with a clear message, a non-zero exit and nothing changed', async () => {
    const scratch = temp.make();
    const dataDir = join(scratch, 'data');
    dataDirWithMigrations(dataDir, scratch);
    addFutureMigration(dataDir);
    const before = digest(join(dataDir, 'hearth.db'));
    const filesBefore = readdirSync(dataDir).sort();

    for (const args of [
      ['--port', '0', '--data-dir', dataDir],
      ['workspace', 'list', '--data-dir', dataDir],
    ]) {
      const refused = await runHearth(args, { env: CLEAN_ENV });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('was made by a newer Hearth (1 schema migration unknown to Hearth');
      expect(refused.stderr).toContain('Nothing was changed');
    }
    expect(digest(join(dataDir, 'hearth.db'))).toBe(before);
    expect(existsSync(join(dataDir, 'backups'))).toBe(false);
    expect(existsSync(join(dataDir, 'credentials.json'))).toBe(false);
    expect(
      readdirSync(dataDir)
        .filter((f) => !f.startsWith('hearth.db-'))
        .sort(),
    ).toEqual(filesBefore);
  }, 180_000);
});
