// Cold start: from spawning the built server (dist/server/cli.js, as `npm start` runs it) to the first answered
// POST /v2/ping, with a 1 GB database, median of 3; next to the same start on an empty data dir, a bare
// `node -e` HTTP server and the floor server loaded through tsx (what TypeScript loading alone costs).
// The 1 GB data dir is built once (fill.ts, ~a minute) and kept in the system temp dir between runs, keyed by
// the schema's migrations; the operating system's page cache may hold it, as on a machine that ran it before.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_CLI, freePort, initDataDir, median, ROOT, runScript, stopChild, type Row } from '../harness.ts';

export const title = 'Cold start to the first answered request, 1 GB database (median of 3)';

const TARGET_BYTES = 1_000_000_000;
const ROUNDS = 3;
const MIGRATIONS = join(ROOT, 'server', 'db', 'migrations');

/** The cached 1 GB data dir for the current schema, built when missing. */
async function largeDataDir(): Promise<{ dir: string; bytes: number; builtSeconds: number | null }> {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .sort())
    hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  const dir = join(tmpdir(), `hearth-bench-cold-1gb-${hash.digest('hex').slice(0, 12)}`);
  const done = join(dir, 'bench-complete');
  if (existsSync(done)) return { dir, bytes: statSync(join(dir, 'hearth.db')).size, builtSeconds: null };
  rmSync(dir, { recursive: true, force: true });
  const started = performance.now();
  const creds = await initDataDir(dir);
  const fill = await runScript<{ bytes: number }>(['test/bench/fill.ts', 'to-size', join(dir, 'hearth.db'), creds.apiKey, String(TARGET_BYTES)]);
  writeFileSync(done, new Date().toISOString());
  return { dir, bytes: fill.bytes, builtSeconds: (performance.now() - started) / 1000 };
}

/** Milliseconds from spawn to the first 200 answer of POST /v2/ping on `port`; the process is stopped after. */
async function timeStart(command: string[], port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${command.join(' ')} exited before answering`);
      const answered = await fetch(`http://127.0.0.1:${port}/v2/ping`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"data":{}}',
      }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (answered) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await stopChild(child);
  }
}

async function medianStart(makeCommand: (port: number) => string[], prepare?: () => string, cleanup?: (dir: string) => void) {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = prepare?.();
    const port = await freePort();
    times.push(
      await timeStart(
        makeCommand(port).map((arg) => (arg === '$DIR' ? (dir as string) : arg)),
        port,
      ),
    );
    if (dir) cleanup?.(dir);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

export async function run(): Promise<Row[]> {
  const large = await largeDataDir();
  // as npm start runs it: built into dist/ (run.ts builds it)
  const hearth = (port: number) => [BUILT_CLI, '--port', String(port), '--data-dir', '$DIR'];
  const bare = await medianStart((port) => ['-e', `require('node:http').createServer((q, s) => s.end('{}')).listen(${port}, '127.0.0.1')`]);
  const tsxFloor = await medianStart((port) => ['--import', 'tsx', 'test/bench/floor-server.ts', 'h3', String(port)]);
  const empty = await medianStart(
    hearth,
    () => mkdtempSync(join(tmpdir(), 'hearth-bench-cold-empty-')),
    (dir) => rmSync(dir, { recursive: true, force: true }),
  );
  const full = await medianStart(hearth, () => large.dir);
  const spread = (t: { min: number; max: number }) => `${Math.round(t.min)}–${Math.round(t.max)} ms over ${ROUNDS} starts`;
  const row = (scenario: string, t: { median: number; min: number; max: number }, extra: Partial<Row> = {}): Row => ({
    scenario,
    rps: 0,
    p50: 0,
    p99: 0,
    figure: Math.round(t.median),
    unit: 'ms',
    vs: spread(t),
    ...extra,
  });
  return [
    row('floor: bare `node -e` HTTP server', bare),
    row('floor: the empty h3 server loaded through tsx', tsxFloor),
    row('Hearth, empty data dir (first start: creates the database and credentials)', empty),
    row('Hearth, 1 GB database', full, {
      vs: `${spread(full)}; ${(large.bytes / 1e9).toFixed(2)} GB file, ${large.builtSeconds === null ? 'cached data dir' : `built in ${Math.round(large.builtSeconds)} s`}`,
      baseline: { scenario: 'Hearth, empty data dir', figure: empty.median },
      goal: { kind: 'value<=', value: 1500 },
    }),
  ];
}
