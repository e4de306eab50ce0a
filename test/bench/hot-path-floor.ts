// The HTTP hot path against its floor, measured back to back: rounds alternate the empty h3 handler with
// Hearth's ping, apikeyconfig/get and notifications/get (one page of 50), and each Hearth figure is divided by
// the mean of the two h3 runs around it, so a neighbour's load on the shared cores moves both sides alike.
// Each run also reports the server's CPU time per request (user + system, from /proc): less moved by the
// neighbours than throughput, it is the figure to compare changes with on a busy machine.
//
//   node --import tsx test/bench/hot-path-floor.ts [rounds] [seconds]
//   HOT_PATH_PROFILE=dir  → the Hearth server writes a CPU profile (node --cpu-prof) into dir on exit.
//   HOT_PATH_ONLY=ping,config,notifications  → measure only these scenarios.
//   HOT_PATH_COMPARE=<another checkout, e.g. a git worktree of the previous commit> → A/B against it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { CONNECTIONS, cpuMicros, startChild } from './harness.ts';

const rounds = Number(process.argv[2] ?? 4);
const seconds = Number(process.argv[3] ?? 3);
const profileDir = process.env.HOT_PATH_PROFILE;
const only = process.env.HOT_PATH_ONLY?.split(',');

const cpuPerRequest = new Map<string, number[]>();
const userPerRequest = new Map<string, number[]>();
const push = (map: Map<string, number[]>, label: string, value: number) => map.set(label, [...(map.get(label) ?? []), value]);

async function rps(
  url: string,
  path: string,
  body: string,
  headers: Record<string, string> = {},
  duration = seconds,
  pid?: number,
  label?: string,
): Promise<number> {
  const cpuBefore = pid ? cpuMicros(pid) : { user: 0, system: 0 };
  const result = await autocannon({
    url: url + path,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections: CONNECTIONS,
    duration,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  if (pid && label) {
    const cpu = cpuMicros(pid);
    push(cpuPerRequest, label, (cpu.user + cpu.system - cpuBefore.user - cpuBefore.system) / result.requests.total);
    push(userPerRequest, label, (cpu.user - cpuBefore.user) / result.requests.total);
  }
  return result.requests.average;
}

/** A Hearth server in a child process (from `checkout`, this one by default), seeded with a page of notifications. */
async function startHearth(checkout?: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-hot-path-'));
  const node = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const entry = checkout ? join(checkout, 'server/cli.ts') : 'server/cli.ts';
  const server = await startChild([...node, entry, '--port', '0', '--data-dir', dataDir]);
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string };
  const headers = { 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
  const call = async (path: string, data: unknown) => {
    const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ data }) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { result: unknown }).result;
  };
  await call('/v2/organizations/documents/add', { organizationId: 'org', createOrganization: true, documents: [{ documentId: 'doc' }] });
  const actionUser = { userId: 'ann', name: 'Ann', email: 'ann@example.com' };
  for (let i = 0; i < 60; i++) {
    await call('/v2/notifications/add', {
      organizationId: 'org',
      documentId: 'doc',
      actionUser,
      displayHeadlineMessageTemplate: '{actionUser} mentioned you',
      displayBodyMessage: `note ${i}`,
      notifyUsers: [{ userId: `u${i % 5}`, name: `User ${i % 5}` }],
    });
  }
  const page = (await call('/v2/notifications/get', { organizationId: 'org', documentId: 'doc', pageSize: 50 })) as { data: unknown[] };
  if (page.data.length !== 50) throw new Error(`expected a page of 50, got ${page.data.length}`);
  const stop = async () => {
    const exited = new Promise((resolve) => server.child.on('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url: server.url, pid: server.child.pid!, headers, stop };
}

const h3 = await startChild(['test/bench/floor-server.ts', 'h3']);
// HOT_PATH_COMPARE=<another checkout>: its server runs each scenario right after this one's ("name@other").
const compare = process.env.HOT_PATH_COMPARE;
const servers = [{ suffix: '', hearth: await startHearth() }];
if (compare) servers.push({ suffix: '@other', hearth: await startHearth(compare) });
try {
  const ping = '{"data":{}}';
  const notificationsPage = JSON.stringify({ data: { organizationId: 'org', documentId: 'doc', pageSize: 50 } });
  const scenarios: Array<{ name: string; path: string; body: string; server: Awaited<ReturnType<typeof startHearth>> }> = [];
  for (const name of ['ping', 'config', 'notifications']) {
    if (only && !only.includes(name)) continue;
    for (const { suffix, hearth } of servers) {
      const path = name === 'ping' ? '/v2/ping' : name === 'config' ? '/v2/workspace/apikeyconfig/get' : '/v2/notifications/get';
      scenarios.push({ name: name + suffix, path, body: name === 'notifications' ? notificationsPage : ping, server: hearth });
    }
  }

  // warm both servers (JIT, statement caches) before anything is measured
  await rps(h3.url, '/v2/ping', ping, {}, 1);
  for (const { path, body, server } of scenarios) await rps(server.url, path, body, server.headers, 1);

  const ratios = new Map<string, number[]>(scenarios.map(({ name }) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    let before = await rps(h3.url, '/v2/ping', ping, {}, seconds, h3.child.pid, 'h3');
    const line = [`round ${round}: h3 ${before.toFixed(0)}`];
    for (const { name, path, body, server } of scenarios) {
      const hearthRps = await rps(server.url, path, body, server.headers, seconds, server.pid, name);
      const after = await rps(h3.url, '/v2/ping', ping, {}, seconds, h3.child.pid, 'h3');
      const ratio = hearthRps / ((before + after) / 2);
      ratios.get(name)!.push(ratio);
      line.push(`${name} ${hearthRps.toFixed(0)} (${(ratio * 100).toFixed(0)}%)`, `h3 ${after.toFixed(0)}`);
      before = after;
    }
    console.log(line.join(' · '));
  }
  for (const [name, values] of ratios) {
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    console.log(`${name}: median ${(median * 100).toFixed(0)}% of the empty h3 handler (runs: ${values.map((v) => (v * 100).toFixed(0)).join(', ')})`);
  }
  const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const h3Cpu = medianOf(cpuPerRequest.get('h3') ?? [0]);
  for (const [name, values] of cpuPerRequest) {
    const cpu = medianOf(values);
    const user = medianOf(userPerRequest.get(name) ?? [0]);
    console.log(
      `CPU per request, ${name}: median ${cpu.toFixed(1)} µs, of which user ${user.toFixed(1)} µs${name === 'h3' ? '' : ` (h3 / this: ${((h3Cpu / cpu) * 100).toFixed(0)}%)`}`,
    );
  }
} finally {
  h3.child.kill('SIGTERM');
  for (const { hearth } of servers) await hearth.stop();
}
