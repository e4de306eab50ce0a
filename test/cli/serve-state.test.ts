import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startHearth, tempDirs, type CliServer } from '../helpers/cli.ts';
import { apiKeyHeaders, call, dataOf } from '../helpers/server.ts';
import { CLEAN_ENV } from './data-dirs.ts';

const temp = tempDirs();
afterAll(() => temp.cleanup());

async function stop(server: CliServer) {
  server.child.kill('SIGTERM');
  return server.exited;
}

const organizations = async (server: CliServer, dataDir: string) => {
  const headers = apiKeyHeaders(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')));
  const got = await call(server.url, '/v2/organizations/get', {}, headers);
  expect(got.status).toBe(200);
  return dataOf<{ id: string }[]>(got)
    .map((o) => o.id)
    .sort();
};

const addOrganization = async (server: CliServer, dataDir: string, organizationId: string) => {
  const headers = apiKeyHeaders(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')));
  expect((await call(server.url, '/v2/organizations/add', { organizations: [{ organizationId }] }, headers)).status).toBe(200);
};

describe('serve --import and --export-on-exit', () => {
  it('saves the state when the server stops and starts another data dir from it, replacing the archive each time', async () => {
    const root = temp.make();
    const state = join(root, 'state');
    const first = join(root, 'first');
    const a = await startHearth(['--port', '0', '--data-dir', first, '--export-on-exit', state, '--export-secrets', 'omit'], { env: CLEAN_ENV });
    await addOrganization(a, first, 'acme');
    expect(await stop(a)).toBe(0);
    expect(a.output()).toContain(`to ${state}`);
    expect(JSON.parse(readFileSync(join(state, 'manifest.json'), 'utf8'))).toMatchObject({ format: 'hearth-export' });

    // the usual loop: each run starts from the archive and saves over it
    const second = join(root, 'second');
    const b = await startHearth(['--port', '0', '--data-dir', second, '--import', state, '--export-on-exit', state, '--export-secrets', 'omit'], {
      env: CLEAN_ENV,
    });
    expect(await organizations(b, second)).toEqual(['acme']);
    await addOrganization(b, second, 'globex');
    expect(await stop(b)).toBe(0);

    const third = join(root, 'third');
    const c = await startHearth(['--port', '0', '--data-dir', third, '--import', state], { env: CLEAN_ENV });
    expect(await organizations(c, third)).toEqual(['acme', 'globex']);
    expect(await stop(c)).toBe(0);
  }, 180_000);

  it('refuses bad transfer flags before starting, creating nothing', async () => {
    const root = temp.make();
    const dataDir = join(root, 'data');
    const notArchive = join(root, 'notes');
    mkdirSync(notArchive);
    writeFileSync(join(notArchive, 'todo.txt'), 'keep me');
    const cases: [string[], string][] = [
      [['--export-on-exit', notArchive, '--export-secrets', 'omit'], 'is not empty and not a Hearth export'],
      [['--export-on-exit', join(root, 'out')], '--export-on-exit needs --export-secrets include or omit'],
      [['--export-on-exit', join(root, 'out'), '--export-secrets', 'include'], '--export-secrets include needs a passphrase'],
      [['--import', notArchive], 'not a Hearth export (no manifest.json)'],
      [['--import-conflict', 'skip'], '--import-conflict goes with --import DIR'],
    ];
    for (const [args, message] of cases) {
      const result = await runHearth(['serve', '--port', '0', '--data-dir', dataDir, ...args], { env: CLEAN_ENV });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
    expect(existsSync(dataDir)).toBe(false);
    expect(readFileSync(join(notArchive, 'todo.txt'), 'utf8')).toBe('keep me');
  }, 240_000);
});
