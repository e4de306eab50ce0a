import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  vs?: string;
}

export interface Child {
  child: ChildProcess;
  url: string;
}

/** Starts a TypeScript entry point in a child process and waits for the port it prints (PORT n or the banner). */
export async function startChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const port = out.match(/PORT (\d+)/)?.[1] ?? out.match(/API\s+http:\/\/127\.0\.0\.1:(\d+)/)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  return { child, url };
}

/** A Hearth server in a child process with a fresh data dir; `stop` kills it and removes the dir. */
export async function startHearth() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
  const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
  return {
    ...server,
    creds,
    headers,
    async call(path: string, data: unknown) {
      const res = await fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify({ data }) });
      const body = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(body).slice(0, 300)}`);
      return body.result;
    },
    stop() {
      server.child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Load from this process with autocannon: a 1 s warm-up, then the measured run. Fails on any non-2xx. */
export async function load(url: string, path: string, body: string, headers: Record<string, string> = {}) {
  const options = { url: url + path, method: 'POST' as const, body, headers: { 'content-type': 'application/json', ...headers }, connections: CONNECTIONS };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) {
    const sample = await fetch(options.url, { method: 'POST', headers: options.headers, body }).then(async (r) => `${r.status} ${(await r.text()).slice(0, 300)}`);
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors; a sample answer: ${sample}`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

export const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;
