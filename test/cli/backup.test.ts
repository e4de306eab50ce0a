import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliServer } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf, eventually } from '../helpers/server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const hearth = (...args: string[]) => run(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli.ts'), ...args], { cwd: ROOT });
const dirs: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('hearth backup and restore', () => {
  it("copies a running server's data dir consistently under concurrent writes, and the copy restores and serves", async () => {
    const dataDir = temp('hearth-backup-src-');
    const server = await startCliServer(dataDir);
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const headers = apiKeyHeaders(creds);
    const write = (i: number) =>
      call(
        server.url,
        '/v2/notifications/add',
        {
          organizationId: 'acme',
          createOrganization: true,
          documentId: 'doc',
          createDocument: true,
          actionUser: { userId: 'ann' },
          displayHeadlineMessageTemplate: `note ${i}`,
          displayBodyMessage: 'body',
          notifyUsers: [{ userId: 'bob' }],
        },
        headers,
      );
    // writes keep coming while the backup runs
    let acked = 0;
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) if ((await write(i)).status === 200) acked++;
    })();
    await eventually(() => expect(acked).toBeGreaterThanOrEqual(10));
    const ackedBefore = acked;
    const out = join(temp('hearth-backup-out-'), 'backup');
    const { stdout } = await hearth('backup', '--data-dir', dataDir, '--out', out, '--json');
    const ackedAfter = acked;
    stop = true;
    await writer;
    const manifest = JSON.parse(stdout);
    expect(manifest).toMatchObject({ format: 1, migrations: expect.any(Number), bytes: expect.any(Number) });
    for (const file of ['hearth.db', 'webhooks.db', 'master.key', 'credentials.json', 'manifest.json']) expect(existsSync(join(out, file))).toBe(true);

    // the copy is one consistent instant: integrity ok, and it holds every write acknowledged before the backup began
    const copy = new Database(join(out, 'hearth.db'), { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = (copy.prepare('SELECT count(*) AS n FROM notifications').get() as { n: number }).n;
    copy.close();
    expect(ackedBefore).toBeGreaterThanOrEqual(10);
    expect(rows).toBeGreaterThanOrEqual(ackedBefore);
    expect(rows).toBeLessThanOrEqual(ackedAfter + 1);

    // restore is refused while the server runs on the target, and over an existing database without --force
    const refused = await hearth('restore', '--from', out, '--data-dir', dataDir).catch((e: { stderr: string; code: number }) => e);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('is running on') });
    server.child.kill('SIGTERM');
    await server.exited;
    const over = await hearth('restore', '--from', out, '--data-dir', dataDir).catch((e: { stderr: string }) => e);
    expect((over as { stderr: string }).stderr).toContain('pass --force');

    // restored into a fresh dir, a server starts on it with the same credentials and the same data
    const target = temp('hearth-backup-dst-');
    await hearth('restore', '--from', out, '--data-dir', target);
    expect(readFileSync(join(target, 'webhooks.db')).equals(readFileSync(join(out, 'webhooks.db')))).toBe(true);
    const restored = await startCliServer(target);
    try {
      const got = await call(restored.url, '/v2/notifications/get', { organizationId: 'acme', documentId: 'doc', pageSize: 1000 }, headers);
      expect(got.status).toBe(200);
      expect(dataOf<unknown[]>(got).length).toBe(rows);
    } finally {
      restored.child.kill('SIGTERM');
      await restored.exited;
    }
  }, 120_000);

  it('refuses what is not a backup, a damaged one, and a non-empty output dir, changing nothing', async () => {
    const target = temp('hearth-restore-');
    const notBackup = temp('hearth-not-backup-');
    const bad = await hearth('restore', '--from', notBackup, '--data-dir', target).catch((e: { stderr: string; code: number }) => e);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a Hearth backup') });
    writeFileSync(join(notBackup, 'manifest.json'), '{}');
    writeFileSync(join(notBackup, 'hearth.db'), 'this is not a database');
    writeFileSync(join(notBackup, 'master.key'), 'x');
    const damaged = await hearth('restore', '--from', notBackup, '--data-dir', target).catch((e: { stderr: string; code: number }) => e);
    expect(damaged).toMatchObject({ code: 1 });
    expect(existsSync(join(target, 'hearth.db'))).toBe(false);
    const busy = await hearth('backup', '--data-dir', target, '--out', notBackup).catch((e: { stderr: string }) => e);
    expect((busy as { stderr: string }).stderr).toContain('No Hearth database');
  }, 60_000);
});
