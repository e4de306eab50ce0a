// HTTP floor: a bare node:http handler, an empty h3 handler and one that reads its body vs Hearth's /v2/ping, an
// authenticated read, and /v2/notifications/get (one page of 50) with 10k and with 1M notifications stored in one
// organization, served from the response cache (a client polling the same page) and with the cache off. The
// notifications are written by test/bench/fill.ts into a stopped server's database before it starts. Figures that
// are compared with each other are measured in alternated rounds (BENCH_ROUNDS, default 5) and each is the median
// of its rounds, so that the machine's drift over a minute falls on both sides of a ratio. Each also states the
// server's CPU time per request (median of its rounds): the same comparison, less moved than throughput by the
// load client's share of the two cores. The computed page is also set against its in-process floor
// (test/bench/page-floor.ts: the same 50 rows with their recipients read by one prepared better-sqlite3 statement
// and serialized with JSON.stringify, no HTTP), alternated with it: Hearth's server CPU per request against the
// floor's CPU per page; and against the same statement and JSON.stringify behind a bare node:http handler (the floor
// over HTTP, floor-server.ts `page-db`): server CPU per request on both sides.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, DURATION, initDataDir, load, median, runScript, sequentialLatency, startChild, stopChild, type Child, type Row } from '../harness.ts';

export const title = 'HTTP floor: node:http and h3 vs ping and notifications/get at 10k and 1M';

const SIZES = [10_000, 1_000_000] as const;
const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 5)) || 5);

type LoadResult = Awaited<ReturnType<typeof load>>;
/**
 * A measurement taken in several rounds: the round of median throughput, every round's throughput, and the
 * median of the rounds' server CPU time per request (µs).
 */
type Alternated = LoadResult & { all: number[]; cpu: number | undefined; cpuAll: Array<number | undefined> };

/** Measures each target once per round, in turn, ROUNDS times; each keeps its round of median throughput. */
async function alternated<K extends string>(targets: Record<K, () => Promise<LoadResult>>): Promise<Record<K, Alternated>> {
  const results = {} as Record<K, LoadResult[]>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const key of Object.keys(targets) as K[]) (results[key] ??= []).push(await targets[key]());
  }
  const out = {} as Record<K, Alternated>;
  for (const key of Object.keys(results) as K[]) {
    const sorted = [...results[key]].sort((a, b) => a.rps - b.rps);
    const cpu = results[key].flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs]));
    out[key] = {
      ...(sorted[(sorted.length - 1) >> 1] as LoadResult),
      all: results[key].map((r) => r.rps),
      cpu: cpu.length > 0 ? median(cpu) : undefined,
      cpuAll: results[key].map((r) => r.cpuUs),
    };
  }
  return out;
}

/** A data dir whose organization `bench` holds `size` notifications, and a server started on it. */
async function filledServer(size: number) {
  const dataDir = mkdtempSync(join(tmpdir(), `hearth-bench-http-${label(size)}-`));
  const creds = await initDataDir(dataDir);
  await runScript(['test/bench/fill.ts', 'notifications', join(dataDir, 'hearth.db'), creds.apiKey, 'bench', String(size)]);
  const server = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  return { ...server, dataDir, apiKey: creds.apiKey, headers: authHeaders(creds) };
}

/** What test/bench/page-floor.ts prints. */
interface PageFloor {
  pagesPerSecond: number;
  cpuUs: number;
  p50: number;
  p99: number;
  mean: number;
  bytes: number;
  rows: number;
  firstId: string;
  lastId: string;
}

/**
 * One run of the computed page's in-process floor on a server's data dir (read-only, beside the running server),
 * as a load result: pages per second in one thread, per-page latency, its CPU per page. It must read the page the
 * server answers: the same first and last ids.
 */
async function pageFloor(dataDir: string, apiKey: string, expected: { firstId: string; lastId: string }, bytes: number[]): Promise<LoadResult> {
  const floor = await runScript<PageFloor>(['test/bench/page-floor.ts', join(dataDir, 'hearth.db'), apiKey, 'bench', 'doc-3', String(DURATION)]);
  if (floor.rows !== 50 || floor.firstId !== expected.firstId || floor.lastId !== expected.lastId) {
    throw new Error(`the page floor read ${floor.rows} rows ${floor.firstId}…${floor.lastId}, the server's page is ${expected.firstId}…${expected.lastId}`);
  }
  bytes.push(floor.bytes);
  return { rps: floor.pagesPerSecond, p50: floor.p50, p99: floor.p99, mean: floor.mean, cpuUs: floor.cpuUs };
}

/**
 * The computed page's floor over HTTP (floor-server.ts `page-db`) on a server's data dir: started, and checked to
 * answer the server's page (the same first and last ids).
 */
async function pageHttpFloor(dataDir: string, apiKey: string, expected: { firstId: string; lastId: string }) {
  const floor = await startChild(['test/bench/floor-server.ts', 'page-db'], {
    PAGE_DB: join(dataDir, 'hearth.db'),
    PAGE_KEY: apiKey,
    PAGE_ORG: 'bench',
    PAGE_DOC: 'doc-3',
  });
  const rows = (await (await fetch(`${floor.url}/v2/notifications/get`, { method: 'POST', body: '{}' })).json()) as Array<{ id: string }>;
  if (rows.length !== 50 || rows[0]?.id !== expected.firstId || rows[49]?.id !== expected.lastId) {
    await stopChild(floor.child);
    throw new Error(
      `the page floor over HTTP read ${rows.length} rows ${rows[0]?.id}…${rows.at(-1)?.id}, the server's page is ${expected.firstId}…${expected.lastId}`,
    );
  }
  return floor;
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
    // The floors and ping in alternated rounds, each figure the median of its rounds: the two cores are shared by
    // the load client and the server, and a single measurement of each drifts by several percent between them.
    const rounds = await alternated({
      node: () => load(node.url, '/v2/ping', ping, {}, { pid: node.child.pid }),
      h3: () => load(h3.url, '/v2/ping', ping, {}, { pid: h3.child.pid }),
      h3Body: () => load(h3Body.url, '/v2/ping', ping, {}, { pid: h3Body.child.pid }),
      hearth: () => load(small.url, '/v2/ping', ping, {}, { pid: small.child.pid }),
    });
    const note = (r: Alternated) =>
      `median of ${r.all.length} alternated rounds: ${r.all.map((x) => Math.round(x).toLocaleString('en-US')).join(', ')} req/s` +
      (r.cpu === undefined ? '' : `; server CPU ${r.cpu.toFixed(1)} µs per request`);
    rows.push({ scenario: 'floor: bare node:http', ...rounds.node, vs: note(rounds.node) });
    rows.push({ scenario: 'floor: empty h3 handler', ...rounds.h3, vs: note(rounds.h3) });
    const h3Baseline = { scenario: 'empty h3 handler', figure: rounds.h3.rps };
    // not the goal's floor, but the fair one: ping reads, parses and checks its body, which the empty handler skips
    rows.push({
      scenario: 'floor: h3 handler that reads its JSON body (await event.req.json())',
      ...rounds.h3Body,
      baseline: h3Baseline,
      vs: note(rounds.h3Body),
    });
    // Each round's own ratio too: ping and the empty handler ran one after the other in it, so a burst of a
    // neighbour's load on the shared host shows as one odd round here rather than moving a median.
    const byRound = rounds.hearth.all.map((rps, i) => `${Math.round((rps / (rounds.h3.all[i] as number)) * 100)}%`).join(', ');
    rows.push({
      scenario: 'Hearth POST /v2/ping',
      ...rounds.hearth,
      baseline: h3Baseline,
      goal: { kind: 'ratio>=', value: 0.9 },
      vs: `${note(rounds.hearth)}; round by round, of the empty h3 handler: ${byRound}`,
    });
    rows.push({
      scenario: 'Hearth POST /v2/ping, against the h3 handler that reads its body',
      ...rounds.hearth,
      baseline: { scenario: 'h3 handler reading its JSON body', figure: rounds.h3Body.rps },
    });
    // The same comparison in the server's own CPU time (median of the rounds; lower is better): throughput also
    // carries the load client's share of the two cores and a neighbour's bursts, this only the server's work.
    if (rounds.hearth.cpu !== undefined && rounds.h3.cpu !== undefined) {
      rows.push({
        scenario: 'Hearth POST /v2/ping, server CPU time per request',
        rps: 0,
        p50: 0,
        p99: 0,
        figure: rounds.hearth.cpu,
        unit: 'µs',
        baseline: { scenario: 'empty h3 handler', figure: rounds.h3.cpu },
        vs: `h3 handler reading its JSON body: ${rounds.h3Body.cpu?.toFixed(1) ?? '?'} µs; bare node:http: ${rounds.node.cpu?.toFixed(1) ?? '?'} µs`,
      });
    }
    const authed = await load(small.url, '/v2/workspace/apikeyconfig/get', ping, small.headers);
    rows.push({ scenario: 'Hearth apikeyconfig/get (API key auth + one read)', ...authed, baseline: h3Baseline });

    // The newest page of a document holding 1,000 notifications; the organization holds 10k or 1M. Measured twice:
    // as a polling client sees it (the same page again: the response cache answers while nothing is written),
    // then on the same data dir with the cache off, every answer computed.
    const page = JSON.stringify({ data: { organizationId: 'bench', documentId: 'doc-3', pageSize: 50 } });
    // the ceiling for any server answering a page of this size on this machine: a fixed body of the same bytes
    const pageBytes = (
      await (
        await fetch(small.url + '/v2/notifications/get', { method: 'POST', headers: { 'content-type': 'application/json', ...small.headers }, body: page })
      ).arrayBuffer()
    ).byteLength;
    const pageFloorServer = await startChild(['test/bench/floor-server.ts', 'page'], { PAGE_BYTES: String(pageBytes) });
    started.push(pageFloorServer);
    // The fixed body and the two polled pages alternated as the floors and ping are; then, on the same data dirs
    // with the cache off, the two computed ones.
    const polled = await alternated({
      floor: () => load(pageFloorServer.url, '/v2/ping', ping, {}, { pid: pageFloorServer.child.pid }),
      small: () => load(small.url, '/v2/notifications/get', page, small.headers, { pid: small.child.pid }),
      large: () => load(large.url, '/v2/notifications/get', page, large.headers, { pid: large.child.pid }),
    });
    rows.push({
      scenario: `floor: bare node:http answering a fixed body of the page's size (${pageBytes.toLocaleString('en-US')} bytes)`,
      ...polled.floor,
      baseline: h3Baseline,
      vs: note(polled.floor),
    });
    await stopChild(pageFloorServer.child);
    // latency of one request at a time: the query's own cost, without the queueing of 50 connections
    const latencyOf = (server: { url: string; headers: Record<string, string> }) =>
      sequentialLatency(server.url, '/v2/notifications/get', page, server.headers);
    const cachedLatency = [await latencyOf(small), await latencyOf(large)];
    const [smallComputed, largeComputed] = [await restartedWithoutCache(small), await restartedWithoutCache(large)];
    started.push(smallComputed, largeComputed);
    // the ids of the page the computed servers answer, which the in-process floor must read too
    const pageIds = async (server: { url: string; headers: Record<string, string> }) => {
      const res = await fetch(server.url + '/v2/notifications/get', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server.headers },
        body: page,
      });
      const items = ((await res.json()) as { result: { data: Array<{ id: string }> } }).result.data;
      if (items.length !== 50) throw new Error(`notifications/get answered ${items.length} items, not 50`);
      return { firstId: items[0]!.id, lastId: items[49]!.id };
    };
    const [smallIds, largeIds] = [await pageIds(smallComputed), await pageIds(largeComputed)];
    const floorBytes: number[] = [];
    // the same statement and JSON.stringify behind a bare node:http handler, on each data dir
    const [smallHttpFloor, largeHttpFloor] = [
      await pageHttpFloor(smallComputed.dataDir, smallComputed.apiKey, smallIds),
      await pageHttpFloor(largeComputed.dataDir, largeComputed.apiKey, largeIds),
    ];
    started.push(smallHttpFloor, largeHttpFloor);
    // each computed page alternated with its floors on the same data dir (a floor runs while its server idles)
    const computed = await alternated({
      small: () => load(smallComputed.url, '/v2/notifications/get', page, smallComputed.headers, { pid: smallComputed.child.pid }),
      smallFloor: () => pageFloor(smallComputed.dataDir, smallComputed.apiKey, smallIds, floorBytes),
      smallHttpFloor: () => load(smallHttpFloor.url, '/v2/notifications/get', page, {}, { pid: smallHttpFloor.child.pid }),
      large: () => load(largeComputed.url, '/v2/notifications/get', page, largeComputed.headers, { pid: largeComputed.child.pid }),
      largeFloor: () => pageFloor(largeComputed.dataDir, largeComputed.apiKey, largeIds, floorBytes),
      largeHttpFloor: () => load(largeHttpFloor.url, '/v2/notifications/get', page, {}, { pid: largeHttpFloor.child.pid }),
    });
    const computedLatency = [await latencyOf(smallComputed), await latencyOf(largeComputed)];

    for (const [i, key] of (['small', 'large'] as const).entries()) {
      const size = label(SIZES[i]!);
      for (const [how, saturated, alone] of [
        ['repeated (response cache)', polled[key], cachedLatency],
        ['every answer computed (cache off)', computed[key], computedLatency],
      ] as const) {
        rows.push({
          scenario: `Hearth notifications/get, page of 50, ${size} stored, ${how}`,
          ...saturated,
          baseline: h3Baseline,
          goal: { kind: 'ratio>=', value: 0.5 },
          vs: note(saturated),
        });
        const latency = alone[i]!;
        rows.push({
          scenario: `Hearth notifications/get, page of 50, ${size} stored, ${how}, median latency at 1 connection`,
          rps: latency.rps,
          p50: latency.p50,
          p99: latency.p99,
          // the median, not the mean: a neighbour's burst on the shared cores moves the mean of a 1 ms request a lot
          figure: latency.p50,
          vs: `mean ${latency.mean} ms`,
          unit: 'ms',
          ...(i === 1
            ? { baseline: { scenario: `the same at ${label(SIZES[0])}`, figure: alone[0]!.p50 }, goal: { kind: 'ratio<=' as const, value: 1.2 } }
            : {}),
        });
      }
    }

    // Hearth's computed page against its in-process floor, in CPU time: pages per second of CPU (1e6 / µs per
    // page or request), so that higher is better and the ratio is the floor's CPU per page over Hearth's per request.
    for (const [i, key] of (['small', 'large'] as const).entries()) {
      const size = label(SIZES[i]!);
      const hearth = computed[key];
      const floor = computed[key === 'small' ? 'smallFloor' : 'largeFloor'];
      if (hearth.cpu === undefined || floor.cpu === undefined) continue;
      const perCpuSecond = (us: number) => 1e6 / us;
      const floorScenario = `floor: the page of 50 at ${size} in process, one prepared better-sqlite3 statement + JSON.stringify, no HTTP`;
      rows.push({
        scenario: `${floorScenario}, pages per second of its CPU`,
        rps: floor.rps,
        p50: floor.p50,
        p99: floor.p99,
        figure: perCpuSecond(floor.cpu),
        unit: 'pages/CPU s',
        vs: `${floor.cpu.toFixed(1)} µs of CPU a page (median of ${floor.all.length} alternated rounds: ${floor.cpuAll.map((c) => c?.toFixed(0) ?? '?').join(', ')} µs); ${Math.round(floor.rps).toLocaleString('en-US')} pages/s in one thread; ${Math.max(...floorBytes).toLocaleString('en-US')} bytes a page (Hearth's answer: ${pageBytes.toLocaleString('en-US')})`,
      });
      const byRound = hearth.cpuAll
        .map((c, r) => (c === undefined || floor.cpuAll[r] === undefined ? '?' : `${Math.round(((floor.cpuAll[r] as number) / c) * 100)}%`))
        .join(', ');
      rows.push({
        scenario: `Hearth notifications/get, page of 50, ${size} stored, cache off: requests per second of server CPU (higher is better; ratio = floor's CPU per page / Hearth's per request)`,
        rps: hearth.rps,
        p50: hearth.p50,
        p99: hearth.p99,
        figure: perCpuSecond(hearth.cpu),
        unit: 'pages/CPU s',
        baseline: { scenario: 'the in-process floor', figure: perCpuSecond(floor.cpu) },
        goal: { kind: 'ratio>=', value: 0.75 },
        vs: `server CPU ${hearth.cpu.toFixed(1)} µs a request against the floor's ${floor.cpu.toFixed(1)} µs a page (the goal allows 1.33×); round by round, floor / Hearth: ${byRound}`,
      });
      // The floor over HTTP: what users feel is a page sent, and no server sends one for less. The in-process floor's
      // CPU a page over this floor's CPU a request says how much of the 75 % the HTTP round trip alone takes.
      const http = computed[key === 'small' ? 'smallHttpFloor' : 'largeHttpFloor'];
      if (http.cpu === undefined) continue;
      const httpRounds = hearth.cpuAll
        .map((c, r) => (c === undefined || http.cpuAll[r] === undefined ? '?' : `${Math.round(((http.cpuAll[r] as number) / c) * 100)}%`))
        .join(', ');
      rows.push({
        scenario: `floor over HTTP: the page of 50 at ${size}, the same statement + JSON.stringify behind a bare node:http handler, requests per second of its CPU`,
        rps: http.rps,
        p50: http.p50,
        p99: http.p99,
        figure: perCpuSecond(http.cpu),
        unit: 'pages/CPU s',
        baseline: { scenario: 'the in-process floor', figure: perCpuSecond(floor.cpu) },
        vs: `server CPU ${http.cpu.toFixed(1)} µs a request (rounds ${http.cpuAll.map((c) => c?.toFixed(0) ?? '?').join(', ')} µs): the HTTP round trip alone leaves the in-process floor at ${Math.round((floor.cpu / http.cpu) * 100)} % of what a page over HTTP costs`,
      });
      rows.push({
        scenario: `Hearth notifications/get, page of 50, ${size} stored, cache off, against the floor over HTTP (ratio = its CPU per request / Hearth's)`,
        rps: hearth.rps,
        p50: hearth.p50,
        p99: hearth.p99,
        figure: perCpuSecond(hearth.cpu),
        unit: 'pages/CPU s',
        baseline: { scenario: 'the floor over HTTP', figure: perCpuSecond(http.cpu) },
        goal: { kind: 'ratio>=', value: 0.75 },
        vs: `server CPU ${hearth.cpu.toFixed(1)} µs a request against ${http.cpu.toFixed(1)} µs; throughput ${Math.round(hearth.rps)} against ${Math.round(http.rps)} req/s; round by round, floor / Hearth: ${httpRounds}`,
      });
    }
  } finally {
    for (const child of started) await stopChild(child.child);
    for (const child of started) if (child.dataDir) rmSync(child.dataDir, { recursive: true, force: true });
  }
  return rows;
}
