// A/B of write operations between this checkout's built server and another checkout's (AB_OTHER=<dir with dist/>),
// alternated round by round, each figure the server's CPU time per request (from /proc) and its throughput.
//   AB_OTHER=../main [AB_ONLY=notifications/add,users/add x1] [AB_PIN=1] node --import tsx test/bench/ab-writes.ts [rounds] [seconds]
// The verdict is the median of each round's ratio: the two servers of a round run back to back, so they share the
// machine's state of the moment (on a shared VM a round's figures move by ±30 % from one round to the next).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuMicros, notificationAddBody, threadAddBody } from './harness.ts';

const rounds = Number(process.argv[2] ?? 4);
const seconds = Number(process.argv[3] ?? 3);
const other = process.env.AB_OTHER;
const pin = process.env.AB_PIN === '1';
if (pin) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
if (!other) throw new Error('AB_OTHER=<another checkout, built> is required');

async function start(checkout: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-ab-'));
  const args = [join(checkout, 'dist/server/cli.js'), '--port', '0', '--data-dir', dataDir];
  // AB_PIN=1: the server on the second core, this process (the load) on the first
  const child = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', '1', process.execPath, ...args] : args, {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const port = out.match(/PORT (\d+)/)?.[1] ?? out.match(/API\s+http:\/\/127\.0\.0\.1:(\d+)/)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string };
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
  return { checkout, url, headers, pid: child.pid!, stop: () => (child.kill('SIGTERM'), rmSync(dataDir, { recursive: true, force: true })) };
}

const scenarios: Record<string, (i: number) => string> = {
  'notifications/add': () => notificationAddBody('org'),
  'users/add x1': (i) => JSON.stringify({ data: { organizationId: 'org', users: [{ userId: `u${i}`, name: 'U' }] } }),
  'organizations/get': () => JSON.stringify({ data: { organizationIds: ['org'] } }),
  'documents/get': () => JSON.stringify({ data: { organizationId: 'org', pageSize: 50 } }),
  'apikeyconfig/get': () => JSON.stringify({ data: {} }),
  ping: () => JSON.stringify({ data: {} }),
  'commentannotations/add': () => threadAddBody('threads'),
  'notifications/get': () => JSON.stringify({ data: { organizationId: 'org', documentId: 'doc', pageSize: 50 } }),
};
const only = process.env.AB_ONLY?.split(',').map((s) => s.trim());
if (only) for (const name of Object.keys(scenarios)) if (!only.includes(name)) delete scenarios[name];
const paths: Record<string, string> = {
  'notifications/add': '/v2/notifications/add',
  'users/add x1': '/v2/users/add',
  'organizations/get': '/v2/organizations/get',
  'documents/get': '/v2/organizations/documents/get',
  'apikeyconfig/get': '/v2/workspace/apikeyconfig/get',
  ping: '/v2/ping',
  'commentannotations/add': '/v2/commentannotations/add',
  'notifications/get': '/v2/notifications/get',
};

const servers = [await start(process.cwd()), await start(other)];
const cpu = new Map<string, number[]>();
try {
  for (let round = 0; round <= rounds; round++) {
    for (const name of Object.keys(scenarios)) {
      for (const s of servers) {
        const before = cpuMicros(s.pid);
        const result = await autocannon({
          url: s.url + paths[name],
          method: 'POST',
          headers: s.headers,
          body: scenarios[name]!(round),
          connections: 50,
          duration: round === 0 ? 1 : seconds,
        });
        if (result.non2xx > 0 || result.errors > 0 || result.requests.total === 0)
          throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const after = cpuMicros(s.pid);
        if (round === 0) continue; // warm-up
        const key = `${name} @${s.checkout === process.cwd() ? 'this' : 'other'}`;
        cpu.set(key, [...(cpu.get(key) ?? []), (after.user + after.system - before.user - before.system) / result.requests.total]);
      }
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  for (const name of Object.keys(scenarios)) {
    const here = cpu.get(`${name} @this`)!;
    const there = cpu.get(`${name} @other`)!;
    const mine = median(here);
    const theirs = median(there);
    const paired = median(here.map((v, i) => there[i]! / v));
    console.log(
      `${name}: server CPU per request ${mine.toFixed(0)} µs here, ${theirs.toFixed(0)} µs there: this is ${(paired * 100).toFixed(0)} % of the other's speed, median of the rounds' ratios (rounds here ${cpu
        .get(`${name} @this`)!
        .map((v) => v.toFixed(0))
        .join(', ')}; there ${cpu
        .get(`${name} @other`)!
        .map((v) => v.toFixed(0))
        .join(', ')})`,
    );
  }
} finally {
  for (const s of servers) s.stop();
}
