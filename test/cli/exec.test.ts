// `hearth exec` (issue 47): a throwaway Hearth for one command, its variables, its exit code, signals, cleanup.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/server.ts';
import { ROOT, runHearth } from '../helpers/cli.ts';

const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const CLI = join(ROOT, 'server', 'cli.ts');
const env = { LOG_LEVEL: 'warn', PORT: '1', DATABASE_URL: 'postgres://app-own-database/should-not-be-read' };
const kept: string[] = [];
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
});

/** A child that calls Hearth with the variables it was given and prints what it saw. */
const probe = `
const e = process.env;
const call = async (path, data, headers = {}) => (await fetch(e.HEARTH_URL + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ data }) })).json();
const keyHeaders = { 'x-svc-api-key': e.HEARTH_API_KEY, 'x-svc-auth-token': e.HEARTH_AUTH_TOKEN };
const added = await call('/v2/organizations/documents/add', { organizationId: 'o', createOrganization: true, documents: [{ documentId: 'd' }] }, keyHeaders);
const fixture = await call('/v2/crdt/get', { organizationId: 'acme', documentId: 'readme' }, { 'x-svc-api-key': 'key_fixture_acme', 'x-svc-auth-token': 'yauth_fixture_acme_0001' });
const reset = await call('/testing/reset', {});
console.log(JSON.stringify({ vars: Object.fromEntries(Object.entries(e).filter(([k]) => k.startsWith('HEARTH_'))), port: e.PORT, added, fixture, reset }));
process.exit(Number(process.argv[1] ?? 0));
`;

describe('hearth exec', () => {
  it('runs the command with the HEARTH_ variables against a testing-mode Hearth holding the fixtures, exits with its code and removes the data', async () => {
    const run = await runHearth(
      ['exec', '--fixtures', join(ROOT, 'docs', 'fixtures.example.json'), '--', process.execPath, '--input-type=module', '-e', probe, '3'],
      { env },
    );
    expect(run.code, run.stderr).toBe(3);
    const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      vars: Record<string, string>;
      port: string;
      added: { result?: unknown };
      fixture: unknown;
      reset: { result?: { data: { apiKeys: number } } };
    };
    expect(Object.keys(seen.vars).sort()).toEqual([
      'HEARTH_API_KEY',
      'HEARTH_AUTH_TOKEN',
      'HEARTH_DATA_DIR',
      'HEARTH_URL',
      'HEARTH_WORKSPACE_AUTH_TOKEN',
      'HEARTH_WORKSPACE_ID',
      'HEARTH_WS_URL',
    ]);
    expect(seen.vars.HEARTH_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // the fixtures' key, with its fixed token, reads the fixtures' content
    expect(JSON.stringify(seen.fixture)).toContain('Hello from the fixtures.');
    expect(seen.vars.HEARTH_WS_URL).toBe(`${seen.vars.HEARTH_URL!.replace('http', 'ws')}/yjs`);
    // the app's own PORT and DATABASE_URL reach the command and do not configure Hearth (which started on SQLite)
    expect(seen.port).toBe('1');
    expect(seen.added.result).toBeDefined();
    expect(seen.reset.result?.data.apiKeys).toBe(2); // the default workspace's key and the fixtures' key, both kept
    expect(existsSync(seen.vars.HEARTH_DATA_DIR!)).toBe(false);
  });

  it('keeps the data dir with --keep and says where; 127 for a command not found; 2 without a command', async () => {
    const [missing, none] = await Promise.all([
      runHearth(['exec', '--keep', '--', 'hearth-no-such-command-47'], { env }),
      runHearth(['exec', '--keep'], { env }),
    ]);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('cannot run hearth-no-such-command-47: command not found');
    const dir = /kept the data dir at (.+)\n/.exec(missing.stderr)?.[1];
    expect(dir).toBeDefined();
    kept.push(dir!);
    expect(existsSync(join(dir!, 'credentials.json'))).toBe(true);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the command to run after --');
  });

  it('passes SIGTERM on to the command and exits with the code it chose', async () => {
    const script = "process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(7); }); setInterval(() => {}, 1000); console.log('ready');";
    const child = spawn(process.execPath, ['--import', TSX, CLI, 'exec', '--', process.execPath, '-e', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await eventually(() => expect(out).toContain('ready'), 20_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(7);
    expect(out).toContain('got SIGTERM');
  });
});
