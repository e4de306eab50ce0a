// Many instances as one server (issue 31): PostgreSQL next to SQLite, two instances next to one, and the propagation
// of a Yjs edit between instances (through Redis) next to within one. A throwaway PostgreSQL and Redis are started
// for the run (test/helpers/external-servers.ts: Debian's postgresql and redis-server), on this machine, beside the
// load generator (this process) and the instances: every figure says what shares the cores.
//
// - The computed notifications page (response cache off): 50 notifications with their recipient, of 2,000 on one
//   document, seeded through the API on each engine. Goal: one instance on PostgreSQL ≥ 50 % of SQLite's rate.
// - Hot-row writes: notifications/add to one document from every connection, on each engine. Goal (issue 43): PostgreSQL
//   ≥ 50 % of SQLite's, no write ending as a 500; the units PostgreSQL refused and the instance ran again are counted.
//   BENCH_CLUSTER_BASE=<another checkout, built (npm run build:server)> adds its Hearth on PostgreSQL (a database and a
//   Redis of its own) to the same alternated rounds: the before of an A/B in one run.
// BENCH_CLUSTER=writes runs the hot-row writes alone (the organization seeded by a few adds, nothing else measured);
// BENCH_CLUSTER_ROUNDS sets their alternated rounds (default 3).
// - The same page from two instances of a cluster against one (load split evenly). Goal: ≥ 1.5× where the machine
//   has the cores for it; said plainly when it has not (each instance wants one, PostgreSQL another, the load
//   generator a fourth).
// - A steady stream of edits from a writer to 50 readers (crdt-steady.ts), the readers on the writer's instance or on
//   another one. Goal: cross-instance p99 ≤ 2× same-instance p99.
// - 1,000 rooms × (writer + reader), 10 edits each, on two instances against one (each room's clients on one
//   instance, rooms spread over the instances as a load balancer spreads connections).
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, startRedis } from '../../helpers/external-servers.ts';
import { yWebsocketClient, type Client } from '../crdt-clients.ts';
import { STEADY, steadyRoom } from '../crdt-steady.ts';
import { CONNECTIONS, authHeaders, inPool, load, percentile, ratio, readCredentials, startChild, stopChild, type Child, type Row } from '../harness.ts';

export const title = 'Cluster: PostgreSQL vs SQLite, two instances vs one, Yjs propagation across instances (Redis)';

const NOTIFICATIONS = 2000;
const ROOMS = 1000;
const EDITS_PER_ROOM = 10;
const page = JSON.stringify({ data: { organizationId: 'org', documentId: 'doc', pageSize: 50 } });

/** The instance's count of units of work PostgreSQL refused and it ran again (GET /metrics). */
async function retriesOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^hearth_db_transaction_retries_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

interface Instance extends Child {
  dataDir: string;
}

export async function run(): Promise<Row[]> {
  process.setMaxListeners(0);
  const cores = availableParallelism();
  const rows: Row[] = [];
  const dirs: string[] = [];
  const started: Child[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'hearth-bench-cluster-'));
    dirs.push(d);
    return d;
  };
  const writesOnly = process.env.BENCH_CLUSTER === 'writes';
  const baseDir = process.env.BENCH_CLUSTER_BASE;
  const [postgres, redis, baseRedis] = await Promise.all([startPostgres(), startRedis(), baseDir ? startRedis() : undefined]);
  const start = async (env: Record<string, string>, dataDir = dir()): Promise<Instance> => {
    const child = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir], { RESPONSE_CACHE_MB: '0', ...env });
    started.push(child);
    return { ...child, dataDir };
  };
  try {
    const sqlite = await start({});
    const database = await postgres.createDatabase('bench');
    const first = await start({ DATABASE_URL: database, REDIS_URL: redis.url });
    const sqliteHeaders = authHeaders(readCredentials(sqlite.dataDir));
    const headers = authHeaders(readCredentials(first.dataDir));
    let base: { instance: Instance; headers: Record<string, string> } | undefined;
    const databases = [database];
    if (baseDir && baseRedis) {
      const baseDataDir = dir();
      databases.push(await postgres.createDatabase('bench_base'));
      const child = await startChild([join(baseDir, 'dist', 'server', 'cli.js'), '--port', '0', '--data-dir', baseDataDir], {
        RESPONSE_CACHE_MB: '0',
        DATABASE_URL: databases[1] as string,
        REDIS_URL: baseRedis.url,
      });
      started.push(child);
      base = { instance: { ...child, dataDir: baseDataDir }, headers: authHeaders(readCredentials(baseDataDir)) };
    }
    for (const [url, h] of [[sqlite.url, sqliteHeaders], [first.url, headers], ...(base ? [[base.instance.url, base.headers] as const] : [])] as const)
      await seed(url, h, writesOnly ? 16 : NOTIFICATIONS);
    // The statistics autovacuum gathers within its minute's nap: measured at once after the seed, the planner still
    // took the tables for empty and read each row's recipients through an index of the wrong columns (a page of 50
    // in 18 ms instead of 0.3 ms). The base's database too: left to autovacuum, its first rounds ran on the empty
    // tables' plans and its later ones did not (its rounds spread 2×).
    for (const url of databases) {
      const analyze = new pg.Client({ connectionString: url });
      await analyze.connect();
      await analyze.query('ANALYZE');
      await analyze.end();
    }

    // one instance on each engine, in alternated rounds
    const rounds = { sqlite: [] as number[], postgres: [] as number[], cpuSqlite: [] as number[], cpuPostgres: [] as number[] };
    for (let round = 0; round < (writesOnly ? 0 : 3); round++) {
      const order = round % 2 === 0 ? (['sqlite', 'postgres'] as const) : (['postgres', 'sqlite'] as const);
      for (const engine of order) {
        const target = engine === 'sqlite' ? sqlite : first;
        const result = await load(target.url, '/v2/notifications/get', page, engine === 'sqlite' ? sqliteHeaders : headers, { pid: target.child.pid });
        rounds[engine].push(result.rps);
        (engine === 'sqlite' ? rounds.cpuSqlite : rounds.cpuPostgres).push(result.cpuUs ?? 0);
      }
    }
    const sqliteRps = median(rounds.sqlite);
    const postgresRps = median(rounds.postgres);
    if (!writesOnly) {
      rows.push({
        scenario: 'one instance on SQLite: notifications/get, page of 50 of 2,000 (computed)',
        rps: sqliteRps,
        p50: 0,
        p99: 0,
        vs: `rounds ${rounds.sqlite.map(Math.round).join(', ')} req/s; server CPU ${Math.round(median(rounds.cpuSqlite))} µs a request`,
      });
      rows.push({
        scenario: 'one instance on PostgreSQL: the same page',
        rps: postgresRps,
        p50: 0,
        p99: 0,
        vs: `rounds ${rounds.postgres.map(Math.round).join(', ')} req/s; server CPU ${Math.round(median(rounds.cpuPostgres))} µs a request (PostgreSQL's own CPU not counted)`,
        baseline: { scenario: 'one instance on SQLite', figure: sqliteRps },
        goal: { kind: 'ratio>=', value: 0.5 },
      });
    }

    // Hot-row writes: every connection adds a notification to one document at once. On PostgreSQL these units of
    // work are SERIALIZABLE (each reads the document and its channels, then writes); one PostgreSQL refuses runs
    // again alone in its instance (db/pg/gate.ts), and the row counts them (hearth_db_transaction_retries_total).
    // `load` fails on any non-2xx, so the figure also says that none of them ended as a 500.
    const hot = (i: number) =>
      JSON.stringify({
        data: {
          organizationId: 'org',
          documentId: 'hot',
          createDocument: true,
          actionUser: { userId: 'actor' },
          displayHeadlineMessageTemplate: '{actionUser} pinged you',
          displayBodyMessage: `hot ${i}`,
          notifyUsers: [{ userId: `reader-${i % 20}` }],
        },
      });
    const writes = { sqlite: [] as number[], postgres: [] as number[], base: [] as number[] };
    const retriesBefore = await retriesOf(first.url);
    const baseRetriesBefore = base ? await retriesOf(base.instance.url) : 0;
    const targets = {
      sqlite: { url: sqlite.url, headers: sqliteHeaders },
      postgres: { url: first.url, headers },
      base: base && { url: base.instance.url, headers: base.headers },
    };
    const engines = base ? (['sqlite', 'postgres', 'base'] as const) : (['sqlite', 'postgres'] as const);
    let sent = 0;
    // BENCH_CLUSTER_ROUNDS (default 3): more alternated rounds, for a difference the rounds' spread hides
    const writeRounds = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 3);
    for (let round = 0; round < writeRounds; round++) {
      for (const engine of round % 2 === 0 ? engines : [...engines].reverse()) {
        const target = targets[engine] as { url: string; headers: Record<string, string> };
        const result = await load(target.url, '/v2/notifications/add', hot(0), target.headers, { nextBody: () => hot(sent++) });
        writes[engine].push(result.rps);
      }
    }
    rows.push({
      scenario: `one instance on SQLite: notifications/add to one document, ${CONNECTIONS} connections at once (hot row)`,
      rps: median(writes.sqlite),
      p50: 0,
      p99: 0,
      vs: `rounds ${writes.sqlite.map(Math.round).join(', ')} req/s`,
    });
    if (base)
      rows.push({
        scenario: `one instance on PostgreSQL built from ${baseDir} (base of an A/B): the same writes, no answer but 200`,
        rps: median(writes.base),
        p50: 0,
        p99: 0,
        vs: `rounds ${writes.base.map(Math.round).join(', ')} req/s; ${(await retriesOf(base.instance.url)) - baseRetriesBefore} units refused and run again`,
        baseline: { scenario: 'one instance on SQLite', figure: median(writes.sqlite) },
      });
    rows.push({
      scenario: 'one instance on PostgreSQL: the same writes (READ COMMITTED, row locks and conflict clauses), no answer but 200',
      rps: median(writes.postgres),
      p50: 0,
      p99: 0,
      vs: `rounds ${writes.postgres.map(Math.round).join(', ')} req/s; ${(await retriesOf(first.url)) - retriesBefore} units refused and run again`,
      baseline: { scenario: 'one instance on SQLite', figure: median(writes.sqlite) },
      goal: { kind: 'ratio>=', value: 0.5 },
    });
    if (writesOnly) {
      console.log(`  cluster (writes): PostgreSQL/SQLite ${ratio(median(writes.postgres), median(writes.sqlite))}`);
      return rows;
    }
    // The second instance starts only now: idle beside the writes above, it still heard every write's change
    // notification (PostgreSQL's and Redis'), and its CPU on this machine's two cores cost the measured instance
    // 12 % against a base of the same code (BENCHMARKS.md, "A fence for document deletes").
    const second = await start({ DATABASE_URL: database, REDIS_URL: redis.url, MASTER_KEY_FILE: join(first.dataDir, 'master.key') });

    // two instances against one: the load split evenly between them
    const oneRounds: number[] = [];
    for (let i = 0; i < 3; i++) oneRounds.push((await load(first.url, '/v2/notifications/get', page, headers)).rps);
    const one = median(oneRounds);
    const twoRounds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const half = Math.max(1, Math.floor(CONNECTIONS / 2));
      const both = await Promise.all([first, second].map((target) => load(target.url, '/v2/notifications/get', page, headers, { connections: half })));
      twoRounds.push(both[0]!.rps + both[1]!.rps);
    }
    const two = median(twoRounds);
    const enoughCores = cores >= 4;
    rows.push({
      scenario: `two instances (PostgreSQL + Redis) against one: the same page, ${CONNECTIONS} connections split evenly`,
      rps: two,
      p50: 0,
      p99: 0,
      vs: `${cores} cores for the load generator, PostgreSQL, Redis and the instances${
        enoughCores ? '' : ': too few for two instances to scale (each wants a core, PostgreSQL and the load generator one more each)'
      }`,
      baseline: { scenario: 'one instance', figure: one },
      ...(enoughCores ? { goal: { kind: 'ratio>=' as const, value: 1.5 } } : {}),
    });

    // Yjs propagation: readers on the writer's instance, then on another instance
    const ws = (instance: Instance) => instance.url.replace('http', 'ws') + '/yjs';
    const params = readCredentials(first.dataDir);
    const connectTo = (instance: Instance) => (room: string) =>
      yWebsocketClient(ws(instance), `org/${room}/editor`, { apiKey: params.apiKey, authToken: params.authToken });
    /** The writer (the first client of a round) on `writer`, every reader on `readers`. */
    const split = (writer: Instance, readers: Instance) => {
      let n = 0;
      return (room: string) => (n++ === 0 ? connectTo(writer)(room) : connectTo(readers)(room));
    };
    const same: number[] = [];
    const cross: number[] = [];
    const notes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const order = round % 2 === 0 ? (['same', 'cross'] as const) : (['cross', 'same'] as const);
      for (const kind of order) {
        const result = await steadyRoom(kind === 'same' ? split(first, first) : split(first, second), `steady-${kind}-${round}`, undefined);
        (kind === 'same' ? same : cross).push(result.p99);
        notes.push(`${kind} ${result.p50}/${result.p99}`);
      }
    }
    const sameP99 = median(same);
    rows.push({
      scenario: `Yjs propagation, a steady ${STEADY.rate} edits/s to ${STEADY.readers} readers on the writer's instance: p99`,
      rps: 0,
      figure: sameP99,
      unit: 'ms',
      p50: 0,
      p99: sameP99,
      vs: `rounds p50/p99 ms: ${notes.filter((n) => n.startsWith('same')).join(', ')}`,
    });
    rows.push({
      scenario: 'the same with the readers on another instance (through Redis): p99',
      rps: 0,
      figure: median(cross),
      unit: 'ms',
      p50: 0,
      p99: median(cross),
      vs: `rounds p50/p99 ms: ${notes.filter((n) => n.startsWith('cross')).join(', ')}`,
      baseline: { scenario: 'same-instance p99', figure: sameP99 },
      goal: { kind: 'ratio<=', value: 2 },
    });

    // 1,000 rooms on one instance, then spread over two
    const oneRooms = await manyRooms(() => connectTo(first), 'one');
    const twoRooms = await manyRooms((i) => connectTo(i % 2 === 0 ? first : second), 'two');
    rows.push({
      scenario: `${ROOMS.toLocaleString('en-US')} rooms × (writer + reader), ${EDITS_PER_ROOM} edits each, on one instance (PostgreSQL)`,
      rps: oneRooms.rps,
      p50: oneRooms.p50,
      p99: oneRooms.p99,
      unit: 'updates/s',
    });
    rows.push({
      scenario: 'the same rooms spread over two instances',
      rps: twoRooms.rps,
      p50: twoRooms.p50,
      p99: twoRooms.p99,
      unit: 'updates/s',
      vs: `${cores} cores${enoughCores ? '' : ': too few for two instances to scale'}`,
      baseline: { scenario: 'one instance', figure: oneRooms.rps },
      ...(enoughCores ? { goal: { kind: 'ratio>=' as const, value: 1.5 } } : {}),
    });
    console.log(`  cluster: PostgreSQL/SQLite ${ratio(postgresRps, sqliteRps)}, two/one ${ratio(two, one)}, cross/same p99 ${ratio(median(cross), sameP99)}`);
  } finally {
    for (const child of started.reverse()) await stopChild(child.child);
    await Promise.all([postgres.stop(), redis.stop(), baseRedis?.stop()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  return rows;
}

/** `count` notifications on one document (2,000: the page reads 50 of them), each to one reader, through the API. */
async function seed(url: string, headers: Record<string, string>, count: number) {
  const body = (i: number) =>
    JSON.stringify({
      data: {
        organizationId: 'org',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        actionUser: { userId: 'actor' },
        displayHeadlineMessageTemplate: '{actionUser} pinged you',
        displayBodyMessage: `hello ${i}`,
        notifyUsers: [{ userId: `reader-${i % 20}` }],
      },
    });
  await inPool(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i) => {
      const res = await fetch(`${url}/v2/notifications/add`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body(i) });
      if (res.status !== 200) throw new Error(`seed: notifications/add answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    },
  );
}

/** 1,000 rooms, each a writer and a reader on the instance `instanceOf(room)` names; 10 edits a room. */
async function manyRooms(instanceOf: (room: number) => (room: string) => Client, label: string) {
  const rooms: Array<{ writer: Client; reader: Client; sentAt: number[] }> = [];
  const latencies: number[] = [];
  try {
    for (let i = 0; i < ROOMS; i += 50) {
      const batch = Array.from({ length: Math.min(50, ROOMS - i) }, (_, j) => {
        const connect = instanceOf(i + j);
        return { writer: connect(`${label}-room-${i + j}`), reader: connect(`${label}-room-${i + j}`), sentAt: [] as number[] };
      });
      rooms.push(...batch);
      await Promise.all(batch.flatMap((r) => [r.writer.synced, r.reader.synced]));
    }
    let done = 0;
    const allDone = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stalled: ${done} of ${ROOMS} rooms complete`)), 180_000);
      for (const room of rooms) {
        let seen = 0;
        room.reader.doc.getArray<number>('edits').observe((event) => {
          const now = performance.now();
          for (const item of event.changes.added)
            for (const index of item.content.getContent() as number[]) {
              latencies.push(now - (room.sentAt[index] as number));
              seen++;
            }
          if (seen === EDITS_PER_ROOM && ++done === ROOMS) {
            clearTimeout(timer);
            resolve();
          }
        });
      }
    });
    const began = performance.now();
    for (let edit = 0; edit < EDITS_PER_ROOM; edit++)
      for (const [i, room] of rooms.entries()) {
        room.sentAt[edit] = performance.now();
        room.writer.doc.getArray<number>('edits').push([edit]);
        if (i % 50 === 49) await new Promise((r) => setImmediate(r));
      }
    await allDone;
    latencies.sort((a, b) => a - b);
    return {
      rps: (ROOMS * EDITS_PER_ROOM) / ((performance.now() - began) / 1000),
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
    };
  } finally {
    for (const room of rooms) {
      room.writer.destroy();
      room.reader.destroy();
    }
  }
}
