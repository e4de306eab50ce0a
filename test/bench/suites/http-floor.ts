// HTTP floor: a bare node:http handler, an empty h3 handler and one that reads its body vs Hearth's /v2/ping, an authenticated read, and
// /v2/notifications/get (one page of 50) with 10k and with 1M notifications stored in one organization, served
// from the response cache (a client polling the same page) and with the cache off. The notifications are
// written by test/bench/fill.ts into a stopped server's database before it starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, initDataDir, load, runScript, sequentialLatency, startChild, stopChild, type Child, type Row } from '../harness.ts';

export const title = 'HTTP floor: node:http and h3 vs ping and notifications/get at 10k and 1M';

const SIZES = [10_000, 1_000_000] as const;
const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

/** A data dir whose organization `bench` holds `size` notifications, and a server started on it. */
async function filledServer(size: number) {
  const dataDir = mkdtempSync(join(tmpdir(), `hearth-bench-http-${label(size)}-`));
  const creds = await initDataDir(dataDir);
  await runScript(['test/bench/fill.ts', 'notifications', join(dataDir, 'hearth.db'), creds.apiKey, 'bench', String(size)]);
  const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  return { ...server, dataDir, headers: authHeaders(creds) };
}

/** The same data dir served again with the response cache off: every answer computed. */
async function restartedWithoutCache(server: Awaited<ReturnType<typeof filledServer>>) {
  await stopChild(server.child);
  const again = await startChild(['server/cli.ts', '--port', '0', '--data-dir', server.dataDir], { RESPONSE_CACHE_MB: '0' });
  return { ...server, ...again };
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const started: Array<Child & { dataDir?: string }> = [];
  try {
    const node = await startChild(['test/bench/floor-server.ts', 'node']);
    started.push(node);
    const h3 = await startChild(['test/bench/floor-server.ts', 'h3']);
    started.push(h3);
    const h3Body = await startChild(['test/bench/floor-server.ts', 'h3-body']);
    started.push(h3Body);
    const servers = [];
    for (const size of SIZES) {
      const server = await filledServer(size);
      started.push(server);
      servers.push(server);
    }
    const [small, large] = servers as [Awaited<ReturnType<typeof filledServer>>, Awaited<ReturnType<typeof filledServer>>];

    const ping = '{"data":{}}';
    const nodeFloor = await load(node.url, '/v2/ping', ping);
    rows.push({ scenario: 'floor: bare node:http', ...nodeFloor });
    const h3Floor = await load(h3.url, '/v2/ping', ping);
    rows.push({ scenario: 'floor: empty h3 handler', ...h3Floor });
    const h3Baseline = { scenario: 'empty h3 handler', figure: h3Floor.rps };
    // not the goal's floor, but the fair one: ping reads, parses and checks its body, which the empty handler skips
    const h3BodyFloor = await load(h3Body.url, '/v2/ping', ping);
    rows.push({ scenario: 'floor: h3 handler that reads its JSON body (await event.req.json())', ...h3BodyFloor, baseline: h3Baseline });

    const hearthPing = await load(small.url, '/v2/ping', ping);
    rows.push({ scenario: 'Hearth POST /v2/ping', ...hearthPing, baseline: h3Baseline, goal: { kind: 'ratio>=', value: 0.9 } });
    rows.push({ scenario: 'Hearth POST /v2/ping, against the h3 handler that reads its body', ...hearthPing, baseline: { scenario: 'h3 handler reading its JSON body', figure: h3BodyFloor.rps } });
    const authed = await load(small.url, '/v2/workspace/apikeyconfig/get', ping, small.headers);
    rows.push({ scenario: 'Hearth apikeyconfig/get (API key auth + one read)', ...authed, baseline: h3Baseline });

    // The newest page of a document holding 1,000 notifications; the organization holds 10k or 1M. Measured twice:
    // as a polling client sees it (the same page again: the response cache answers while nothing is written),
    // then on the same data dir with the cache off, every answer computed.
    const page = JSON.stringify({ data: { organizationId: 'bench', documentId: 'doc-3', pageSize: 50 } });
    // the ceiling for any server answering a page of this size on this machine: a fixed body of the same bytes
    const pageBytes = (await (await fetch(small.url + '/v2/notifications/get', { method: 'POST', headers: { 'content-type': 'application/json', ...small.headers }, body: page })).arrayBuffer()).byteLength;
    const pageFloorServer = await startChild(['test/bench/floor-server.ts', 'page'], { PAGE_BYTES: String(pageBytes) });
    started.push(pageFloorServer);
    const pageFloor = await load(pageFloorServer.url, '/v2/ping', ping);
    rows.push({ scenario: `floor: bare node:http answering a fixed body of the page's size (${pageBytes.toLocaleString('en-US')} bytes)`, ...pageFloor, baseline: h3Baseline });
    await stopChild(pageFloorServer.child);
    const latency: Record<'cached' | 'computed', number[]> = { cached: [], computed: [] };
    for (const [i, first] of [small, large].entries()) {
      const size = label(SIZES[i]!);
      let server = first;
      for (const mode of ['cached', 'computed'] as const) {
        if (mode === 'computed') {
          server = await restartedWithoutCache(server);
          started.push(server);
        }
        const how = mode === 'cached' ? 'repeated (response cache)' : 'every answer computed (cache off)';
        const saturated = await load(server.url, '/v2/notifications/get', page, server.headers);
        rows.push({ scenario: `Hearth notifications/get, page of 50, ${size} stored, ${how}`, ...saturated, baseline: h3Baseline, goal: { kind: 'ratio>=', value: 0.5 } });
        // latency of one request at a time: the query's own cost, without the queueing of 50 connections
        const alone = await sequentialLatency(server.url, '/v2/notifications/get', page, server.headers);
        // the median, not the mean: a neighbour's burst on the shared cores moves the mean of a 1 ms request a lot
        latency[mode].push(alone.p50);
        rows.push({
          scenario: `Hearth notifications/get, page of 50, ${size} stored, ${how}, median latency at 1 connection`,
          rps: alone.rps,
          p50: alone.p50,
          p99: alone.p99,
          figure: alone.p50,
          vs: `mean ${alone.mean} ms`,
          unit: 'ms',
          ...(i === 1 ? { baseline: { scenario: `the same at ${label(SIZES[0])}`, figure: latency[mode][0]! }, goal: { kind: 'ratio<=' as const, value: 1.2 } } : {}),
        });
      }
    }
  } finally {
    for (const child of started) await stopChild(child.child);
    for (const child of started) if (child.dataDir) rmSync(child.dataDir, { recursive: true, force: true });
  }
  return rows;
}
