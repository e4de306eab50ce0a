// Start-up as a newcomer meets it: `hearth --help`, `npm start` to the first answered POST /v2/ping on an empty
// data dir, and a fresh idle server's memory. Hearth built to JavaScript (what npm install leaves: dist/, run by
// bin/hearth.mjs) next to the same program from its TypeScript sources through tsx (how it ran before), and
// floors measured in the same run: a bare `node -e`, and for memory an empty h3 app and the y-websocket
// reference server, both plain JavaScript as well.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { freePort, median, ROOT, stopChild, type Row } from '../harness.ts';

export const title = 'Start-up: hearth --help, npm start to the first answer, idle memory (medians)';

const HELP_ROUNDS = 7;
const START_ROUNDS = 5;
/** How long a fresh server idles before its memory is read. */
const IDLE_MS = 5_000;

/** A floor server of test/bench as plain JavaScript (where its packages resolve), so that no loader is measured. */
function plainJs(source: string): string {
  const outDir = join(ROOT, 'node_modules', '.cache', 'hearth-bench');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, source.replace(/\W+/g, '-') + '.mjs');
  buildSync({
    entryPoints: [join(ROOT, source)],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

function timeRun(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore', env: { ...process.env } });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited with ${result.status}`);
  return performance.now() - started;
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The node process serving: `npm start` runs it under npm and a shell, in the same process group. */
function serverPid(groupLeader: number, command: string): number {
  const found = spawnSync('pgrep', ['-g', String(groupLeader), '-f', command], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  const pid = found.at(-1);
  if (pid === undefined) throw new Error(`no process ${command} in group ${groupLeader}`);
  return pid;
}

/** From spawn to the first 200 of POST /v2/ping; then, after IDLE_MS, the serving process's RSS. */
async function startAndIdle(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; serving?: string; idle?: boolean } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-start-'));
  const started = performance.now();
  const child = spawn(
    command,
    args.map((a) => a.replace('$PORT', String(port))),
    {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...options.env },
      stdio: 'ignore',
      detached: true,
    },
  );
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    let ms: number;
    for (;;) {
      if (exited) throw new Error(`${command} ${args.join(' ')} exited before answering`);
      const answered = await fetch(`http://127.0.0.1:${port}/v2/ping`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"data":{}}',
      }).then(
        (r) => r.ok,
        () => false,
      );
      if (answered) {
        ms = performance.now() - started;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    let rss = 0;
    if (options.idle) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      rss = rssOf(options.serving ? serverPid(child.pid as number, options.serving) : (child.pid as number));
    }
    return { ms, rss };
  } finally {
    try {
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {
      // gone
    }
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Idle RSS of a floor server that prints its port (PORT n). */
async function floorRss(file: string, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [file, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => (/PORT \d+/.test(String(d)) ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const rss = rssOf(child.pid as number);
  await stopChild(child);
  return rss;
}

const spread = (xs: number[], unit: string) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} ${unit} over ${xs.length}`;
const row = (scenario: string, xs: number[], unit: string, extra: Partial<Row> = {}): Row => ({
  scenario,
  rps: 0,
  p50: 0,
  p99: 0,
  figure: Math.round(median(xs)),
  unit,
  vs: spread(xs, unit),
  ...extra,
});

export async function run(): Promise<Row[]> {
  const built = join(ROOT, 'bin', 'hearth.mjs');
  // what npm install left, made afresh from the sources being measured
  spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });

  const repeat = async <T>(n: number, work: () => T | Promise<T>) => {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(await work());
    return out;
  };
  const bareHelp = await repeat(HELP_ROUNDS, () => timeRun(['-e', '0']));
  const builtHelp = await repeat(HELP_ROUNDS, () => timeRun([built, '--help']));
  const sourceHelp = await repeat(HELP_ROUNDS, () => timeRun(['--import', 'tsx', 'server/cli.ts', '--help']));

  const bareStart = await repeat(START_ROUNDS, () =>
    startAndIdle(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('{}')).listen($PORT, '127.0.0.1')`]),
  );
  const npmStart = await repeat(START_ROUNDS, () => startAndIdle('npm', ['start'], { serving: 'bin/hearth.mjs', idle: true }));
  const builtStart = await repeat(START_ROUNDS, () => startAndIdle(process.execPath, [built], { idle: true }));
  const sourceStart = await repeat(START_ROUNDS, () => startAndIdle(process.execPath, ['--import', 'tsx', 'server/cli.ts'], { idle: true }));

  const h3 = plainJs('test/bench/floor-server.ts');
  const yws = plainJs('test/bench/yws-reference-server.ts');
  const h3Rss = await repeat(3, () => floorRss(h3, ['h3']));
  const ywsRss = await repeat(3, () => floorRss(yws, []));

  const ms = (xs: Array<{ ms: number }>) => xs.map((x) => x.ms);
  const mb = (xs: Array<{ rss: number }>) => xs.map((x) => x.rss);
  const helpFloor = { scenario: 'bare node -e 0', figure: Math.round(median(bareHelp)) };
  const startFloor = { scenario: 'bare node:http server', figure: Math.round(median(ms(bareStart))) };
  const memoryFloor = { scenario: 'y-websocket reference server', figure: Math.round(median(ywsRss)) };
  return [
    row('floor: bare `node -e 0`', bareHelp, 'ms'),
    row('`hearth --help`, built (npx hearth, bin/hearth.mjs)', builtHelp, 'ms', { baseline: helpFloor, goal: { kind: 'value<=', value: 500 } }),
    row('`hearth --help` from the TypeScript sources (tsx)', sourceHelp, 'ms', { baseline: helpFloor }),
    row('floor: bare node:http server to its first answer', ms(bareStart), 'ms'),
    row('`npm start` to the first answered ping, empty data dir', ms(npmStart), 'ms', { baseline: startFloor, goal: { kind: 'value<=', value: 1500 } }),
    row('built server (node bin/hearth.mjs) to the first answered ping', ms(builtStart), 'ms', { baseline: startFloor }),
    row('from the TypeScript sources (tsx) to the first answered ping', ms(sourceStart), 'ms', { baseline: startFloor }),
    row('floor: empty h3 app idle', h3Rss, 'MB'),
    row('floor: y-websocket reference server idle', ywsRss, 'MB'),
    row(`fresh server idle ${IDLE_MS / 1000} s after npm start`, mb(npmStart), 'MB', { baseline: memoryFloor, goal: { kind: 'value<=', value: 100 } }),
    row(`from the TypeScript sources, idle ${IDLE_MS / 1000} s`, mb(sourceStart), 'MB', { baseline: memoryFloor }),
  ];
}
