import { execFile } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportArchive } from '../../server/tooling/export.ts';
import { importArchive } from '../../server/tooling/import.ts';
import { runHearth, startCliServer } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf, eventually } from '../helpers/server.ts';
import { editManifest, rewriteArchiveFile, serverOn, snapshotDataDir, tempDirs } from '../helpers/transfer.ts';
import { populateKey } from '../helpers/transfer-fixture.ts';

const temp = tempDirs();
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const hearth = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 });
const PASSPHRASE = 'a passphrase for the tests';

let sourceDir: string;
let archive: string;
let credentials: { apiKey: string; authToken: string };
/** A data dir with its own rows (a server started on it once, with an organization of its own). */
let populated: string;

beforeAll(async () => {
  sourceDir = temp('hearth-transfer-err-src-');
  const t = await serverOn(sourceDir);
  credentials = t.credentials;
  await populateKey(t, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken, headersK: apiKeyHeaders(t.credentials) }, 'acme', 'ALPHA');
  await t.server.close();
  archive = join(temp('hearth-transfer-err-arc-'), 'archive');
  await exportArchive({ dataDir: sourceDir, out: archive, secrets: 'include', passphrase: PASSPHRASE });

  populated = temp('hearth-transfer-err-pop-');
  const p = await serverOn(populated);
  await p.callK('/v2/organizations/add', { organizations: [{ organizationId: 'own-org' }] });
  await p.server.close();
}, 120_000);

/** A copy of the good archive, changed by `damage`. */
function damaged(damage: (dir: string) => void): string {
  const dir = join(temp('hearth-transfer-bad-'), 'archive');
  cpSync(archive, dir, { recursive: true });
  damage(dir);
  return dir;
}

describe('a bad archive gives a clear error and changes nothing', () => {
  const firstAttachment = () => readdirSync(join(archive, 'files', 'attachments'))[0]!;
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    [
      'a byte changed after export',
      (dir) => writeFileSync(join(dir, 'tables/users.jsonl'), readFileSync(join(dir, 'tables/users.jsonl'), 'utf8').replace('Ann', 'Anx')),
      /tables\/users\.jsonl does not match its checksum in manifest\.json/,
    ],
    [
      'a file missing',
      (dir) => rmSync(join(dir, 'files', 'attachments', firstAttachment())),
      /files\/attachments\/[A-Za-z0-9]{32} is listed in manifest\.json but missing/,
    ],
    [
      'a truncated line (checksum updated to match)',
      (dir) => rewriteArchiveFile(dir, 'tables/notifications.jsonl', readFileSync(join(dir, 'tables/notifications.jsonl'), 'utf8').slice(0, 40)),
      /tables\/notifications\.jsonl line 1: not valid JSON/,
    ],
    [
      'a value of the wrong type',
      (dir) =>
        rewriteArchiveFile(
          dir,
          'tables/agents.jsonl',
          readFileSync(join(dir, 'tables/agents.jsonl'), 'utf8').replace(/"createdAt":\d+/, '"createdAt":"yesterday"'),
        ),
      /tables\/agents\.jsonl line 1: createdAt must be a number/,
    ],
    [
      'rows whose parent is missing',
      (dir) => rewriteArchiveFile(dir, 'tables/organizations.jsonl', ''),
      /tables\/\w+\.jsonl line 1: the row refers to a row that is neither in the archive nor in the data dir \(FOREIGN KEY constraint failed\)/,
    ],
    [
      'fewer lines than the manifest says',
      (dir) => editManifest(dir, (m) => (m.tables.find((t: { name: string }) => t.name === 'users')!.rows = 5)),
      /tables\/users\.jsonl has 2 lines but manifest\.json says 5/,
    ],
    ['a newer format version', (dir) => editManifest(dir, (m) => (m.formatVersion = 2)), /format version 2, written by a newer Hearth/],
    ['a newer schema level', (dir) => editManifest(dir, (m) => (m.schemaLevel = 999)), /comes from a newer Hearth .*schema level 999/],
    ['not an archive at all', (dir) => rmSync(join(dir, 'manifest.json')), /is not a Hearth export: it has no manifest\.json/],
  ];
  for (const [name, damage, message] of cases) {
    it(name, async () => {
      const bad = damaged(damage);
      const before = snapshotDataDir(populated);
      await expect(importArchive({ dataDir: populated, from: bad, conflict: 'fail', passphrase: PASSPHRASE })).rejects.toThrow(message);
      expect(snapshotDataDir(populated)).toBe(before);
      // into a data dir that does not exist yet: nothing is left behind
      const fresh = join(temp('hearth-transfer-none-'), 'data');
      await expect(importArchive({ dataDir: fresh, from: bad, conflict: 'fail', passphrase: PASSPHRASE })).rejects.toThrow(message);
      expect(existsSync(fresh)).toBe(false);
    }, 60_000);
  }

  it('a missing or wrong passphrase', async () => {
    const before = snapshotDataDir(populated);
    await expect(importArchive({ dataDir: populated, from: archive, conflict: 'fail' })).rejects.toThrow(/includes secrets sealed with a passphrase/);
    await expect(importArchive({ dataDir: populated, from: archive, conflict: 'fail', passphrase: 'not it' })).rejects.toThrow(/Wrong passphrase/);
    expect(snapshotDataDir(populated)).toBe(before);
  });
});

describe('conflict policies on a populated data dir', () => {
  it('fail refuses and changes nothing; skip keeps existing rows; replace overwrites them; rows only in the data dir stay', async () => {
    const target = temp('hearth-transfer-conflict-');
    const first = await importArchive({ dataDir: target, from: archive, conflict: 'fail', passphrase: PASSPHRASE });
    const t = await serverOn(target);
    await t.callK('/v2/organizations/update', { organizations: [{ organizationId: 'acme', organizationName: 'Renamed on the target' }] });
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'target-only' }] });
    await t.server.close();
    const names = async () => {
      const s = await serverOn(target);
      try {
        const orgs = dataOf<Array<{ id: string; organizationName?: string; name?: string }>>(await s.callK('/v2/organizations/get', {}));
        return Object.fromEntries(orgs.map((o) => [o.id, o.organizationName ?? o.name]));
      } finally {
        await s.server.close();
      }
    };

    const before = snapshotDataDir(target);
    await expect(importArchive({ dataDir: target, from: archive, conflict: 'fail', passphrase: PASSPHRASE })).rejects.toThrow(
      /tables\/workspaces\.jsonl line 1: workspaces id=workspace_\w+ exists already in .*choose --conflict skip or replace/,
    );
    expect(snapshotDataDir(target)).toBe(before);

    const skipped = await importArchive({ dataDir: target, from: archive, conflict: 'skip', passphrase: PASSPHRASE });
    expect(skipped.rows).toEqual({ inserted: 0, replaced: 0, skipped: first.rows.inserted });
    expect(await names()).toMatchObject({ acme: 'Renamed on the target', 'target-only': expect.anything() });

    const replaced = await importArchive({ dataDir: target, from: archive, conflict: 'replace', passphrase: PASSPHRASE });
    expect(replaced.rows).toEqual({ inserted: 0, replaced: first.rows.inserted, skipped: 0 });
    expect(await names()).toMatchObject({ acme: 'ALPHA org', 'target-only': expect.anything() });
    // the sealed tokens still authenticate after being replaced
    const s = await serverOn(target);
    try {
      expect((await s.callK('/v2/organizations/get', {}, apiKeyHeaders(credentials))).status).toBe(200);
    } finally {
      await s.server.close();
    }
  }, 120_000);

  it('is refused while a server runs on the data dir', async () => {
    const target = temp('hearth-transfer-running-');
    const t = await serverOn(target);
    try {
      const before = snapshotDataDir(target);
      await expect(importArchive({ dataDir: target, from: archive, conflict: 'replace', passphrase: PASSPHRASE })).rejects.toThrow(
        /is running on .*stop it before importing/,
      );
      expect(snapshotDataDir(target)).toBe(before);
    } finally {
      await t.server.close();
    }
  });
});

describe('hearth export and hearth import', () => {
  it('round-trip through the CLI with the passphrase from the environment, --json summaries and usage errors', async () => {
    const out = join(temp('hearth-transfer-cli-'), 'archive');
    const env = { HEARTH_EXPORT_PASSPHRASE: PASSPHRASE };
    const exported = JSON.parse((await hearth(['export', '--data-dir', sourceDir, '--out', out, '--secrets', 'include', '--json'], env)).stdout);
    expect(exported).toMatchObject({ out, secrets: 'include', scope: { kind: 'all' }, files: 2 });
    const target = join(temp('hearth-transfer-cli-dst-'), 'data');
    const imported = JSON.parse((await hearth(['import', '--data-dir', target, '--from', out, '--json'], env)).stdout);
    expect(imported.rows).toEqual({ inserted: exported.rows, replaced: 0, skipped: 0 });
    // plain output: progress lines on stderr, the result on stdout
    const again = await hearth(['import', '--data-dir', target, '--from', out, '--conflict', 'skip'], env);
    expect(again.stdout).toMatch(/0 rows added, 0 replaced, \d+ kept as they were/);
    expect(again.stderr).toMatch(/Importing \d+\/\d+ \(100%\)/);

    const usage = await hearth(['export', '--data-dir', sourceDir, '--out', join(out, 'x')]).catch((e: { code: number; stderr: string }) => e);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('export needs --secrets include or --secrets omit') });
    const policy = await hearth(['import', '--from', out, '--conflict', 'merge']).catch((e: { code: number; stderr: string }) => e);
    expect(policy).toMatchObject({ code: 2, stderr: expect.stringContaining('--conflict takes fail, skip or replace, not "merge"') });
    const refused = await hearth(['import', '--data-dir', target, '--from', out], env).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('exists already') });
    const help = await hearth(['export', '--help']);
    expect(help.stdout).toContain('Usage: hearth export --out DIR');
    expect(help.stdout).toContain('--secrets include|omit');
  }, 120_000);
});

describe('export while a server writes', () => {
  it('is one instant of the database: every notification with its recipient, nothing acknowledged before it missing', async () => {
    const dataDir = temp('hearth-transfer-live-');
    const server = await startCliServer(dataDir);
    try {
      const headers = apiKeyHeaders(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')));
      let acked = 0;
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          const res = await call(
            server.url,
            '/v2/notifications/add',
            {
              organizationId: 'acme',
              createOrganization: true,
              documentId: 'doc',
              createDocument: true,
              actionUser: { userId: 'ann' },
              displayHeadlineMessageTemplate: `note ${i}`,
              displayBodyMessage: 'b',
              notifyUsers: [{ userId: 'bob' }],
            },
            headers,
          );
          if (res.status === 200) acked++;
        }
      })();
      await eventually(() => expect(acked).toBeGreaterThan(20), 30_000);
      const ackedBefore = acked;
      const out = join(temp('hearth-transfer-live-arc-'), 'archive');
      // the export runs in its own process, so this process keeps writing meanwhile
      const run = await runHearth(['export', '--data-dir', dataDir, '--out', out, '--secrets', 'omit', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout) as { tables: Record<string, number> };
      const ackedAfter = acked;
      expect(ackedAfter).toBeGreaterThan(ackedBefore);
      stop = true;
      await writer;
      expect(summary.tables.notifications).toBeGreaterThanOrEqual(ackedBefore);
      expect(summary.tables.notifications).toBeLessThanOrEqual(ackedAfter + 1);
      expect(summary.tables.notification_recipients).toBe(summary.tables.notifications);
      const target = temp('hearth-transfer-live-dst-');
      const imported = await importArchive({ dataDir: target, from: out, conflict: 'fail' });
      expect(imported.tables.notifications?.inserted).toBe(summary.tables.notifications);
      expect(imported.tables.notification_recipients?.inserted).toBe(summary.tables.notifications);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);
});
