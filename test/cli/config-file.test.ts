import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startHearth, tempDirs } from '../helpers/cli.ts';
import { call, errorOf } from '../helpers/server.ts';
import { CLEAN_ENV } from './data-dirs.ts';
import { CONFIG_FILE_KEYS } from '../../server/config-file.ts';

const temp = tempDirs();
afterAll(() => temp.cleanup());

interface DoctorReport {
  dataDir: string;
  checks: { name: string; message: string }[];
}

/** What `hearth doctor` resolved: the data dir, and the port it would listen on. */
async function resolved(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  const result = await runHearth(['doctor', '--json', ...args], { cwd: options.cwd, env: { ...CLEAN_ENV, ...options.env } });
  expect(result.stderr).toBe('');
  const report = JSON.parse(result.stdout) as DoctorReport;
  const server = report.checks.find((c) => c.name === 'server')!.message;
  return { dataDir: report.dataDir, port: Number(server.match(/port (\d+)/)?.[1]) };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('hearth.config.json', () => {
  it("applies flags over env over the file over the defaults, with a relative dataDir read from the file's folder", async () => {
    const cwd = temp.make();
    const [filePort, envPort, flagPort] = [await freePort(), await freePort(), await freePort()];
    // defaults: ./data in the working directory, port 8787
    expect(await resolved([], { cwd })).toEqual({ dataDir: join(cwd, 'data'), port: 8787 });

    writeFileSync(join(cwd, 'hearth.config.json'), JSON.stringify({ port: filePort, dataDir: 'from-file' }));
    expect(await resolved([], { cwd })).toEqual({ dataDir: join(cwd, 'from-file'), port: filePort });
    expect(await resolved([], { cwd, env: { DATA_DIR: join(cwd, 'from-env'), PORT: String(envPort) } })).toEqual({
      dataDir: join(cwd, 'from-env'),
      port: envPort,
    });
    expect(
      await resolved(['--data-dir', 'from-flag', '--port', String(flagPort)], { cwd, env: { DATA_DIR: join(cwd, 'from-env'), PORT: String(envPort) } }),
    ).toEqual({
      dataDir: join(cwd, 'from-flag'),
      port: flagPort,
    });

    // --config and HEARTH_CONFIG name a file elsewhere; its relative dataDir is relative to that file's folder
    const elsewhere = join(temp.make(), 'conf');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'team.json'), JSON.stringify({ dataDir: '../shared-data', port: filePort }));
    expect(await resolved(['--config', join(elsewhere, 'team.json')], { cwd })).toEqual({ dataDir: join(elsewhere, '..', 'shared-data'), port: filePort });
    expect(await resolved([], { cwd, env: { HEARTH_CONFIG: join(elsewhere, 'team.json') } })).toEqual({
      dataDir: join(elsewhere, '..', 'shared-data'),
      port: filePort,
    });
  }, 180_000);

  it("reaches the running server: the file's header brand is used unless HEADER_BRAND is set", async () => {
    const cwd = temp.make();
    writeFileSync(
      join(cwd, 'hearth.config.json'),
      JSON.stringify({
        $schema: './hearth.schema.json',
        port: 0,
        dataDir: 'data',
        headerBrand: 'filebrand',
        logLevel: 'warn',
        publicUrl: 'http://hearth.lan:8787/',
      }),
    );
    for (const [env, brand] of [
      [{}, 'filebrand'],
      [{ HEADER_BRAND: 'envbrand' }, 'envbrand'],
    ] as const) {
      const server = await startHearth([], { cwd, env: { ...CLEAN_ENV, ...env } });
      try {
        expect(server.output()).toContain(`Data dir   ${join(cwd, 'data')}`);
        expect(server.output()).toContain('Links to   http://hearth.lan:8787 (PUBLIC_URL');
        // a missing credential header is named with the configured brand
        const missing = await call(server.url, '/v2/organizations/get', {});
        expect(errorOf(missing).message).toContain(`x-${brand}-api-key`);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  }, 180_000);

  it('rejects an unknown key, a bad value, bad JSON and a missing named file with one clear line, creating nothing', async () => {
    const cwd = temp.make();
    const dataDir = join(cwd, 'never-created');
    const cases: [string, string][] = [
      [JSON.stringify({ prot: 8080, dataDir }), `Unknown key "prot" in config file ${join(cwd, 'hearth.config.json')} (did you mean "port"?)`],
      [JSON.stringify({ data_dir: dataDir }), 'Unknown key "data_dir" in config file'],
      [JSON.stringify({ dataDir, HEADER_BRAND: 'x' }), '(did you mean "headerBrand"?)'],
      [JSON.stringify({ dataDir, colour: 'blue' }), 'Unknown key "colour"'],
      [JSON.stringify({ dataDir, port: '8080' }), 'Invalid value in config file'],
      [JSON.stringify({ dataDir, port: 70000 }), 'port:'],
      [JSON.stringify({ dataDir, logLevel: 'loud' }), 'logLevel:'],
      [JSON.stringify({ dataDir, webhookRetryScheduleMs: [] }), 'webhookRetryScheduleMs:'],
      [JSON.stringify({ dataDir, publicUrl: 'hearth.lan:8787' }), 'publicUrl: must be an http(s) URL'],
      ['{ "port": 80, }', 'is not valid JSON'],
      ['[1, 2]', 'must hold a JSON object'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      writeFileSync(join(cwd, 'hearth.config.json'), text);
      // the server itself for the first cases, an admin command for the rest (each start costs a second or two)
      const result = await runHearth(i < 2 ? ['--port', '0'] : ['workspace', 'list'], { cwd, env: CLEAN_ENV });
      expect(result.code, text).toBe(2);
      expect(result.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(result.stderr, text).toContain(message);
      if (i === 0) expect(result.stderr).toContain(`the keys are ${CONFIG_FILE_KEYS.filter((key) => key !== '$schema').join(', ')}`);
    }
    const missing = await runHearth(['--config', 'nope.json', '--port', '0'], { cwd, env: CLEAN_ENV });
    expect(missing).toMatchObject({ code: 2, stderr: `hearth: Config file ${join(cwd, 'nope.json')} does not exist\n` });
    const badEnv = await runHearth(['--port', '0'], { cwd: temp.make(), env: { ...CLEAN_ENV, LOG_LEVEL: 'loud' } });
    expect(badEnv).toMatchObject({ code: 2, stderr: expect.stringContaining('LOG_LEVEL must be one of') });
    expect(existsSync(dataDir)).toBe(false);
  }, 240_000);
});
