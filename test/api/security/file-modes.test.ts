import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../server/db/backup.ts';
import { exportArchive } from '../../../server/tooling/export.ts';
import { runHearth, tempDirs } from '../../helpers/cli.ts';
import { b64, PNG, WEBM } from '../../helpers/media.ts';
import { startTestServer } from '../../helpers/server.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file under `dir` (recursively) with its mode, and every folder's. */
function modes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = modeOf(path);
  }
  return out;
}

const expectOwnerOnly = (found: Record<string, number>) => {
  for (const [path, mode] of Object.entries(found)) expect([path, mode & 0o077], `${path} is ${mode.toString(8)}`).toEqual([path, 0]);
};

describe('files of the data dir, backups and exports', () => {
  it('are created owner-only under the usual umask: databases with their WAL and SHM, keys, attachments', async () => {
    const before = process.umask(0o022);
    try {
      const t = await startTestServer({ dataDir: join(dirs.make(), 'data') });
      const added = await t.callK('/v2/recordings/add', {
        organizationId: 'acme',
        documentId: 'doc',
        createOrganization: true,
        createDocument: true,
        recording: {
          recordingType: 'screen',
          from: { userId: 'u1' },
          recordedTime: { duration: 1000 },
          attachments: [
            { name: 'rec.webm', mimeType: 'video/webm', data: b64(WEBM) },
            { name: 'thumb.png', mimeType: 'image/png', data: b64(PNG) },
          ],
        },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] });
      const found = modes(t.dataDir);
      // the files that matter are there, so the check below is not vacuous
      for (const name of ['hearth.db', 'hearth.db-wal', 'hearth.db-shm', 'webhooks.db', 'webhooks.db-wal', 'master.key', 'credentials.json', 'server.lock'])
        expect(found).toHaveProperty([name]);
      expect(Object.keys(found).some((path) => path.startsWith('attachments/'))).toBe(true);
      expectOwnerOnly(found);
      expect(modeOf(t.dataDir)).toBe(0o700);

      const backup = join(dirs.make(), 'backup');
      backupDataDir(t.dataDir, backup);
      const backedUp = modes(backup);
      expect(backedUp).toHaveProperty(['hearth.db']);
      expect(backedUp).toHaveProperty(['master.key']);
      expectOwnerOnly(backedUp);

      const archive = join(dirs.make(), 'archive');
      await exportArchive({ dataDir: t.dataDir, out: archive, secrets: 'include', passphrase: 'a long enough passphrase' });
      const exported = modes(archive);
      expect(Object.keys(exported).length).toBeGreaterThan(3);
      expectOwnerOnly(exported);
      await t.close();
    } finally {
      process.umask(before);
    }
  });

  it('narrows a database an older Hearth left readable when it is opened', async () => {
    const dataDir = join(dirs.make(), 'data');
    const t = await startTestServer({ dataDir });
    await t.server.close();
    for (const name of ['hearth.db', 'webhooks.db']) chmodSync(join(dataDir, name), 0o644);
    const again = await startTestServer({ dataDir });
    try {
      expect(modeOf(join(dataDir, 'hearth.db'))).toBe(0o600);
      expect(modeOf(join(dataDir, 'webhooks.db'))).toBe(0o600);
    } finally {
      await again.close();
    }
  });

  it('export --secrets include refuses a passphrase under 12 characters; backup says it holds the master key', async () => {
    const dataDir = join(dirs.make(), 'data');
    const t = await startTestServer({ dataDir });
    await t.server.close();
    const short = await runHearth(['export', '--data-dir', dataDir, '--out', join(dirs.make(), 'x'), '--secrets', 'include', '--passphrase', 'x']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 12 characters');
    await expect(exportArchive({ dataDir, out: join(dirs.make(), 'y'), secrets: 'include', passphrase: 'eleven char' })).rejects.toThrow(
      /at least 12 characters/,
    );
    const backup = await runHearth(['backup', '--data-dir', dataDir, '--out', join(dirs.make(), 'b')]);
    expect(backup.code).toBe(0);
    expect(backup.stderr).toContain('holds the master key');
  });
});
