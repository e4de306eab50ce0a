import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = join(import.meta.dirname, '..', '..');
/** The built CLI (scripts/build.mjs), what `npm start` runs. */
export const BUILT_CLI = join(ROOT, 'dist', 'server', 'cli.js');
export const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/**
 * What a goal compares: `ratio>=`/`ratio<=` the row's figure over its baseline's figure (the floor or the peer),
 * `value<=`/`value>=` the figure itself, in the row's unit.
 */
export interface Goal {
  kind: 'ratio>=' | 'ratio<=' | 'value<=' | 'value>=';
  value: number;
}

export interface Row {
  scenario: string;
  /** Requests (or edits, moves…) per second; the row's figure unless `figure` is given. */
  rps: number;
  p50: number;
  p99: number;
  /** A free note printed in the "vs" column. */
  vs?: string;
  /** The figure when it is not a rate (ms, MB, s…); `unit` names it. */
  figure?: number;
  unit?: string;
  /** The floor or peer figure measured in the same run that the ratio is taken against. */
  baseline?: { scenario: string; figure: number };
  goal?: Goal;
}

export interface Child {
  child: ChildProcess;
  url: string;
}

/**
 * Starts a TypeScript entry point in a child process and waits for the port it prints (PORT n or the banner).
 * Hearth itself (`server/cli.ts`) runs as `npm start` runs it: built into dist/ (run.ts builds it first).
 */
export async function startChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child> {
  const command = args[0] === 'server/cli.ts' ? [BUILT_CLI, ...args.slice(1)] : ['--import', 'tsx', ...args];
  const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** SIGTERM, resolved once the process has exited (so that its data dir can be reused or removed). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Runs a TypeScript script to completion in a child process and parses the JSON line it prints last. */
export async function runScript<T>(args: string[]): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}: ${out.slice(-500)}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as T;
}

export interface Credentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export const readCredentials = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as Credentials;

export const authHeaders = (creds: Credentials) => ({ 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken });

/** First start of a server on a fresh data dir (database, migrations, credentials), then stopped: ready to fill. */
export async function initDataDir(dataDir: string): Promise<Credentials> {
  const first = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  await stopChild(first.child);
  return readCredentials(dataDir);
}

/** A Hearth server in a child process with a fresh data dir; `stop` kills it and removes the dir. */
export async function startHearth() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
  const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  const creds = readCredentials(dataDir);
  const headers = { 'content-type': 'application/json', ...authHeaders(creds) };
  return {
    ...server,
    dataDir,
    creds,
    headers,
    async call<T = unknown>(path: string, data: unknown): Promise<T> {
      const res = await fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify({ data }) });
      const body = (await res.json()) as { result?: unknown };
      if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(body).slice(0, 300)}`);
      return body.result as T;
    },
    async stop() {
      await stopChild(server.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadOptions {
  connections?: number;
  /** Builds each request's body (unique ids per request); the fixed body is used otherwise. */
  nextBody?: () => string;
  /** The server's process: its CPU time per request is measured too (`cpuUs`), where /proc tells it (Linux). */
  pid?: number | undefined;
}

const HAS_PROC = existsSync('/proc/self/stat');

/** CPU time a process has used in user mode (its JavaScript) and in the kernel (its sockets), in µs, from /proc (Linux). */
export function cpuMicros(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: (Number(fields[11]) / 100) * 1e6, system: (Number(fields[12]) / 100) * 1e6 };
}

/**
 * Load from this process with autocannon: a 1 s warm-up, then the measured run. Fails on any non-2xx. With a
 * `pid`, also the server's CPU time (user + system) per request of the measured run: less moved than throughput
 * by what shares the cores (the load client itself, neighbours), it shows what the server's own work costs.
 */
export async function load(url: string, path: string, body: string, headers: Record<string, string> = {}, options: LoadOptions = {}) {
  const { nextBody } = options;
  const base = {
    url: url + path,
    method: 'POST' as const,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections: options.connections ?? CONNECTIONS,
  };
  const requests = nextBody ? [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: nextBody() }) }] : undefined;
  await autocannon({ ...base, duration: 1, ...(requests ? { requests } : {}) } as autocannon.Options);
  const pid = HAS_PROC ? options.pid : undefined;
  const cpuBefore = pid === undefined ? undefined : cpuMicros(pid);
  const result = await autocannon({ ...base, duration: DURATION, ...(requests ? { requests } : {}) } as autocannon.Options);
  const cpuAfter = pid === undefined ? undefined : cpuMicros(pid);
  if (result.non2xx > 0 || result.errors > 0) {
    const sample = await fetch(base.url, { method: 'POST', headers: base.headers, body: nextBody ? nextBody() : body }).then(
      async (r) => `${r.status} ${(await r.text()).slice(0, 300)}`,
    );
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors; a sample answer: ${sample}`);
  }
  // total over elapsed time, not the mean of per-second buckets: slow requests (a 1,000-user write) leave buckets empty
  const cpuUs = cpuBefore && cpuAfter ? (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / result.requests.total : undefined;
  return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average, cpuUs };
}

export const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(0)}%`;

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) throw new Error('no pid');
  const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** A TCP port free on loopback now (for a server whose start is timed from spawn, before it can print one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs async work over items with at most `width` in flight. */
export async function inPool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index] as T, index);
      }
    }),
  );
}

/**
 * One request at a time over a keep-alive connection for DURATION seconds (after a 1 s warm-up): the latency of
 * the work itself, without queueing, timed here with sub-millisecond resolution (autocannon rounds to whole ms).
 */
export async function sequentialLatency(url: string, path: string, body: string, headers: Record<string, string> = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url + path);
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path}: status ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const times: number[] = [];
  for (let until = performance.now() + 1000; performance.now() < until; ) await once();
  for (let until = performance.now() + DURATION * 1000; performance.now() < until; ) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const mean = times.reduce((s, x) => s + x, 0) / times.length;
  return { rps: 1000 / mean, mean: round(mean), p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
}

/** The notifications/add request the write benches send: one notification to one reader, creating its organization and document on first use. */
/** A commentannotations/add body: a new thread with one comment, organization and document made on the way. */
export function threadAddBody(organizationId: string): string {
  return JSON.stringify({
    data: {
      organizationId,
      createOrganization: true,
      documentId: 'doc',
      createDocument: true,
      commentAnnotations: [{ commentData: [{ commentText: 'hello there', from: { userId: 'ann', name: 'Ann Archer' } }] }],
    },
  });
}

export function notificationAddBody(organizationId: string): string {
  return JSON.stringify({
    data: {
      organizationId,
      createOrganization: true,
      documentId: 'doc',
      createDocument: true,
      actionUser: { userId: 'actor' },
      displayHeadlineMessageTemplate: '{actionUser} pinged you',
      displayBodyMessage: 'hello',
      notifyUsers: [{ userId: 'reader' }],
    },
  });
}
