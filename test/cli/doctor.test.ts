import { chmodSync, closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startHearth, tempDirs } from '../helpers/cli.ts';
import { addFutureMigration, CLEAN_ENV, dataDirWithMigrations } from './data-dirs.ts';

const temp = tempDirs();
afterAll(() => temp.cleanup());

interface Report {
  ok: boolean;
  dataDir: string;
  checks: { name: string; status: 'ok' | 'warn' | 'fail'; message: string }[];
}

async function doctor(dataDir: string, ...args: string[]) {
  const result = await runHearth(['doctor', '--data-dir', dataDir, '--json', ...args], { env: CLEAN_ENV });
  const report = JSON.parse(result.stdout) as Report;
  const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
  const message = (name: string) => report.checks.find((c) => c.name === name)?.message ?? '';
  return { code: result.code, report, status, message };
}

/** A current, healthy data dir (no server). */
function healthy() {
  const scratch = temp.make();
  const dataDir = join(scratch, 'data');
  dataDirWithMigrations(dataDir, scratch);
  return dataDir;
}

describe('hearth doctor', () => {
  it('passes a healthy data dir, with a server on it or none, in text and JSON', async () => {
    const dataDir = healthy();
    const idle = await doctor(dataDir, '--port', '0');
    expect(idle.code).toBe(0);
    expect(idle.report.ok).toBe(true);
    expect(idle.status).toEqual({ 'data dir': 'ok', 'master key': 'ok', database: 'ok', schema: 'ok', deliveries: 'ok', 'disk space': 'ok', server: 'ok' });

    const server = await startHearth(['--port', '0', '--data-dir', dataDir], { env: CLEAN_ENV });
    try {
      const busy = await doctor(dataDir);
      expect(busy.code).toBe(0);
      expect(busy.message('server')).toContain(`a Hearth server (pid ${server.child.pid}) is running on this data dir at ${server.url}`);
      const text = await runHearth(['doctor', '--data-dir', dataDir], { env: CLEAN_ENV });
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^ok {4}data dir/m);
      expect(text.stdout).toContain('All checks passed.');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 180_000);

  it('fails on a port held by another program, and warns on a key readable by others', async () => {
    const dataDir = healthy();
    const holder = await startHearth(['--port', '0', '--data-dir', healthy()], { env: CLEAN_ENV });
    try {
      const port = new URL(holder.url).port;
      const taken = await doctor(dataDir, '--port', port);
      expect(taken.code).toBe(1);
      expect(taken.status.server).toBe('fail');
      expect(taken.message('server')).toContain(`port ${port} on 127.0.0.1 is in use by another program`);
    } finally {
      holder.child.kill('SIGTERM');
      await holder.exited;
    }
    chmodSync(join(dataDir, 'master.key'), 0o644);
    const loose = await doctor(dataDir, '--port', '0');
    expect(loose.code).toBe(0);
    expect(loose.status['master key']).toBe('warn');
    expect(loose.message('master key')).toContain('mode 0644, should be 0600');
  }, 180_000);

  it('fails, exit code 1, on a missing master key, a corrupted database, a newer schema and a missing data dir', async () => {
    const noKey = healthy();
    rmSync(join(noKey, 'master.key'));
    const keyless = await doctor(noKey, '--port', '0');
    expect(keyless.code).toBe(1);
    expect(keyless.report.ok).toBe(false);
    expect(keyless.status['master key']).toBe('fail');
    expect(keyless.message('master key')).toContain('the stored secrets cannot be decrypted');

    const corrupted = healthy();
    const file = join(corrupted, 'hearth.db');
    const size = readFileSync(file).length;
    const fd = openSync(file, 'r+');
    // garbage over every page after the first: the header still says SQLite, the b-trees are broken
    writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    closeSync(fd);
    const damaged = await doctor(corrupted, '--port', '0');
    expect(damaged.code).toBe(1);
    expect(damaged.status.database).toBe('fail');

    const header = healthy();
    const headerFd = openSync(join(header, 'hearth.db'), 'r+');
    writeSync(headerFd, Buffer.from('this is not a database at all'), 0, 29, 0);
    closeSync(headerFd);
    const notDb = await doctor(header, '--port', '0');
    expect(notDb.code).toBe(1);
    expect(notDb.message('database')).toContain('file is not a database');

    const brokenDeliveries = healthy();
    writeFileSync(join(brokenDeliveries, 'webhooks.db'), 'not a database either, but long enough to be read as a header');
    const deliveries = await doctor(brokenDeliveries, '--port', '0');
    expect(deliveries.code).toBe(1);
    expect(deliveries.status).toMatchObject({ database: 'ok', deliveries: 'fail' });

    const newer = healthy();
    addFutureMigration(newer);
    const future = await doctor(newer, '--port', '0');
    expect(future.code).toBe(1);
    expect(future.status.schema).toBe('fail');
    expect(future.message('schema')).toContain('made by a newer Hearth');

    const missing = await doctor(join(newer, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.report.checks.map((c) => c.name)).toEqual(['data dir', 'server']);
    expect(missing.report.checks[0]).toEqual({ name: 'data dir', status: 'fail', message: expect.stringContaining('does not exist') });
  }, 180_000);
});
