// Hearth as an app's dev dependency (issue 47), as README's "Hearth in your test suite" tells an app team: `npm pack`
// in this repository, installed into a sample app (test/package/sample-app) with nothing of this checkout but the
// tarball, then the app's own suite run by `npx hearth exec --fixtures fixtures.json -- npm test` (the REST API with
// the fixtures' fixed key, a user token over y-websocket, a reset between tests that loads the fixtures again, the
// clock expiring a token), README's vitest globalSetup example copied from README.md and run by `npx vitest run`,
// README's Jest globalSetup example run by `npx jest`, README's shell example (curl resetting through the testing
// API) run by a shell as written,
// and the exit code of a failing command passed through. The install compiles better-sqlite3 (about 90 s here); the
// other packages come from npm's cache when `npm install` or `npm ci` filled it.
import { spawnSync } from 'node:child_process';
import { cpSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE = join(ROOT, 'test', 'package', 'sample-app');

/** Runs a command in `cwd` as a shell user would (the app's own environment, none of this test run's). */
function run(cwd: string, command: string, args: string[], timeoutMs: number) {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', npm_config_update_notifier: 'false' };
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, out: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

/** README's vitest example: the config line and the setup file, as README.md has them. */
function readmeVitestExample(): { config: string; setup: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```js\n(\/\/ vitest\.config\.js: (.+)\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no vitest globalSetup example (a js block opening with "// vitest.config.js: …")');
  return { config: `${block[2]}\n`, setup: block[1] as string };
}

/** README's shell example of `hearth exec` (the line that resets through the testing API with curl), as written. */
function readmeShellExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.startsWith("npx hearth exec -- sh -c 'curl "));
  if (!line) throw new Error("README.md has no shell example of hearth exec with curl (a line opening with npx hearth exec -- sh -c 'curl …)");
  return line;
}

/**
 * README's Jest example: the config (its first comment line) and the two files, as README.md has them. The config is
 * CommonJS (`module.exports`), so in this ES module app it is written as jest.config.cjs.
 */
function readmeJestExample(): { config: string; setup: string; teardown: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```js\n\/\/ jest\.config\.js: (.+)\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no Jest globalSetup example (a js block opening with "// jest.config.js: …")');
  const [setup, teardown] = (block[2] as string).split(/^\/\/ hearth\.teardown\.mjs\n/m);
  if (!setup || !teardown) throw new Error('README.md\'s Jest example has no "// hearth.teardown.mjs" part');
  return { config: `${block[1]}\n`, setup, teardown };
}

describe('the npm package in an app', () => {
  it('installs from npm pack and runs the app suite under hearth exec, README vitest, Jest and shell examples, and exit codes', { timeout: 900_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-package-'));
    try {
      // npm pack builds dist/ (prepare) and packs what package.json's "files" name. It runs in a copy of the source
      // (the files git tracks or would, tests aside; node_modules linked): a build here would empty this checkout's
      // dist/ and renderer/dist/ while other test files serve them
      const source = join(dir, 'source');
      const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
      expect(listed.status, listed.stderr).toBe(0);
      for (const file of listed.stdout.split('\0')) {
        if (!file || file.startsWith('test/') || !existsSync(join(ROOT, file))) continue;
        mkdirSync(dirname(join(source, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(source, file));
      }
      symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
      const packed = run(source, 'npm', ['pack', '--pack-destination', dir, '--silent'], 300_000);
      expect(packed.status, packed.out).toBe(0);
      const tarball = join(dir, packed.out.trim().split('\n').pop() as string);

      const app = join(dir, 'app');
      cpSync(SAMPLE, app, { recursive: true });
      const manifest = readFileSync(join(app, 'package.json'), 'utf8').replace('HEARTH_TARBALL', tarball);
      writeFileSync(join(app, 'package.json'), manifest);
      copyFileSync(join(ROOT, 'docs', 'fixtures.example.json'), join(app, 'fixtures.json'));
      const example = readmeVitestExample();
      writeFileSync(join(app, 'vitest.config.js'), example.config);
      writeFileSync(join(app, 'hearth.setup.js'), example.setup);
      const jest = readmeJestExample();
      writeFileSync(join(app, 'jest.config.cjs'), jest.config);
      writeFileSync(join(app, 'hearth.setup.mjs'), jest.setup);
      writeFileSync(join(app, 'hearth.teardown.mjs'), jest.teardown);

      const installed = run(app, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], 600_000);
      expect(installed.status, installed.out).toBe(0);
      // what an installed Hearth runs is the built dist/: no TypeScript source came with it
      const installedAt = join(app, 'node_modules', 'hearth');
      expect(existsSync(join(installedAt, 'dist', 'server', 'testing', 'index.js'))).toBe(true);
      expect(existsSync(join(installedAt, 'server', 'index.ts'))).toBe(false);

      const suite = run(app, 'npx', ['hearth', 'exec', '--fixtures', 'fixtures.json', '--', 'npm', 'test'], 300_000);
      expect(suite.status, suite.out).toBe(0);
      expect(suite.out).toMatch(/# pass 4/);
      expect(suite.out).toMatch(/# fail 0/);

      const vitest = run(app, 'npx', ['vitest', 'run'], 300_000);
      expect(vitest.status, vitest.out).toBe(0);
      expect(vitest.out).toMatch(/1 passed/);

      const jestRun = run(app, 'npx', ['jest', 'jest/'], 300_000);
      expect(jestRun.status, jestRun.out).toBe(0);
      expect(jestRun.out).toMatch(/Tests:\s+1 passed, 1 total/);

      // README's shell example, run as written by a shell: curl resets the throwaway Hearth through the testing API
      const shell = run(app, 'sh', ['-c', readmeShellExample()], 120_000);
      expect(shell.status, shell.out).toBe(0);
      expect(shell.out).toContain('"message":"Everything was reset."');

      const failing = run(app, 'npx', ['hearth', 'exec', '--', 'node', '-e', 'process.exit(3)'], 120_000);
      expect(failing.status, failing.out).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
