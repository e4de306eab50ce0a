// `npm run bench`: each figure next to a floor measured in the same run on this machine.
// Servers run in child processes; load comes from this process (autocannon) over loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const ROOT = join(import.meta.dirname, '..', '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;

async function startChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
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

async function load(url: string, path: string, body: string, headers: Record<string, string> = {}) {
  // warm-up, then the measured run
  await autocannon({ url: url + path, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, connections: CONNECTIONS, duration: 1 });
  const result = await autocannon({ url: url + path, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, connections: CONNECTIONS, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const rows: Array<{ scenario: string; rps: number; p50: number; p99: number; vs?: string }> = [];
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-'));
try {
  const node = await startChild(['test/bench/floor-server.ts', 'node']);
  const h3 = await startChild(['test/bench/floor-server.ts', 'h3']);
  const hearth = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  children.push(node.child, h3.child, hearth.child);
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
  const ping = '{"data":{}}';

  const nodeFloor = await load(node.url, '/v2/ping', ping);
  rows.push({ scenario: 'floor: bare node:http', ...nodeFloor });
  const h3Floor = await load(h3.url, '/v2/ping', ping);
  rows.push({ scenario: 'floor: empty h3 handler', ...h3Floor });
  const hearthPing = await load(hearth.url, '/v2/ping', ping);
  rows.push({ scenario: 'Hearth POST /v2/ping', ...hearthPing, vs: `${((hearthPing.rps / h3Floor.rps) * 100).toFixed(0)}% of h3 (goal ≥ 90%)` });
  const authed = await load(hearth.url, '/v2/workspace/apikeyconfig/get', ping, { 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken });
  rows.push({ scenario: 'Hearth apikeyconfig/get (set B auth + read)', ...authed, vs: `${((authed.rps / h3Floor.rps) * 100).toFixed(0)}% of h3` });
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\nHTTP floor — ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s each\n`);
console.log('| scenario | req/s | p50 ms | p99 ms | vs floor |');
console.log('|---|---:|---:|---:|---|');
for (const r of rows) console.log(`| ${r.scenario} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.vs ?? ''} |`);
