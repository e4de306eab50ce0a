// Sync throughput and propagation latency, Hearth (which persists every update before broadcasting it) vs
// the y-websocket reference server (memory only) and Hocuspocus (SQLite, whole state stored debounced), in one
// run: one room with 1 writer and 50 readers, and 1,000 rooms with 2 clients each (a writer and a reader), with
// each server's RSS after the run; propagation latency at a steady 200 edits/s from one writer to 50 readers
// (crdt-steady.ts, alternated rounds); then the latency of a REST update on a 100 KB text and the memory per loaded
// document. The bench process drives every client, so the two cores are shared between it and the server. The
// steady rounds have two more peers, the stored-first floors: the reference server writing each update to SQLite
// before it applies and broadcasts it (yws-reference-server.ts), by one insert (what storing first costs any server
// here), and by Hearth's own statements (what it costs with Hearth's schema).
// BENCH_CRDT=steady (or any of one-room, many-rooms, steady, rest, memory, comma-separated) runs only those;
// BENCH_CRDT_BASE=<another checkout, built> adds its Hearth as one more peer of the sync scenarios (an A/B of a
// change side by side, in the same rounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hocuspocusClient, yWebsocketClient, type Client } from '../crdt-clients.ts';
import { medianOf, STEADY, steadyRoom, type SteadyResult } from '../crdt-steady.ts';
import { authHeaders, percentile, readCredentials, rssMb, startChild, stopChild, type Child, type Row } from '../harness.ts';

export const title = 'CRDT sync: 1 writer + 50 readers, 1,000 rooms × 2 clients, a steady 200 edits/s to 50 readers; REST update of a 100 KB text';

const SCENARIOS = ['one-room', 'many-rooms', 'steady', 'rest', 'memory'] as const;
type Scenario = (typeof SCENARIOS)[number];
function chosenScenarios(): Set<Scenario> {
  const asked = process.env.BENCH_CRDT?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!asked?.length) return new Set(SCENARIOS);
  const unknown = asked.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`BENCH_CRDT: unknown scenario ${unknown.join(', ')}; scenarios: ${SCENARIOS.join(', ')}`);
  return new Set(asked as Scenario[]);
}

const READERS = 50;
const EDITS = 2000;
const ROOMS = 1000;
const EDITS_PER_ROOM = 10;
/** Past this a scenario has stalled (a lost update): fail with what arrived rather than hang the run. */
const TIMEOUT_MS = 180_000;

type ConnectTo = (room: string) => Client;

/** Resolves when every reader has seen `edits` pushes to the shared array, recording each one's propagation. */
function watch(readers: Array<{ client: Client; sentAt: number[] }>, edits: number, latencies: number[]) {
  let done = 0;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stalled: ${done} of ${readers.length} readers complete after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    for (const { client, sentAt } of readers) {
      let seen = 0;
      client.doc.getArray<number>('edits').observe((event) => {
        const now = performance.now();
        for (const item of event.changes.added) {
          for (const index of item.content.getContent() as number[]) {
            latencies.push(now - (sentAt[index] as number));
            seen++;
          }
        }
        if (seen === edits && ++done === readers.length) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
}

const summary = (updates: number, started: number, latencies: number[]) => {
  latencies.sort((a, b) => a - b);
  return { rps: updates / ((performance.now() - started) / 1000), p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)) };
};

async function oneRoom(connect: ConnectTo, server: Child) {
  const writer = connect('room');
  const readers = Array.from({ length: READERS }, () => connect('room'));
  await Promise.all([writer.synced, ...readers.map((r) => r.synced)]);
  const sentAt: number[] = [];
  const latencies: number[] = [];
  const allDone = watch(
    readers.map((client) => ({ client, sentAt })),
    EDITS,
    latencies,
  );
  const started = performance.now();
  const edits = writer.doc.getArray<number>('edits');
  for (let i = 0; i < EDITS; i++) {
    sentAt[i] = performance.now();
    edits.push([i]);
    // let the socket breathe every few edits, as a typing user would
    if (i % 20 === 19) await new Promise((r) => setImmediate(r));
  }
  try {
    await allDone;
    return { ...summary(EDITS, started, latencies), rss: rssMb(server.child.pid) };
  } finally {
    for (const c of [writer, ...readers]) c.destroy();
  }
}

async function manyRooms(connect: ConnectTo, server: Child) {
  const rooms: Array<{ writer: Client; reader: Client; sentAt: number[] }> = [];
  try {
    // connect 50 rooms at a time, as clients trickle in, rather than 2,000 handshakes at once
    for (let i = 0; i < ROOMS; i += 50) {
      const batch = Array.from({ length: Math.min(50, ROOMS - i) }, (_, j) => ({
        writer: connect(`room-${i + j}`),
        reader: connect(`room-${i + j}`),
        sentAt: [] as number[],
      }));
      rooms.push(...batch);
      await Promise.all(batch.flatMap((r) => [r.writer.synced, r.reader.synced]));
    }
    const latencies: number[] = [];
    const allDone = watch(
      rooms.map((r) => ({ client: r.reader, sentAt: r.sentAt })),
      EDITS_PER_ROOM,
      latencies,
    );
    const started = performance.now();
    const arrays = rooms.map((r) => r.writer.doc.getArray<number>('edits'));
    for (let edit = 0; edit < EDITS_PER_ROOM; edit++) {
      for (const [i, array] of arrays.entries()) {
        rooms[i]!.sentAt[edit] = performance.now();
        array.push([edit]);
        if (i % 50 === 49) await new Promise((r) => setImmediate(r));
      }
    }
    await allDone;
    return { ...summary(ROOMS * EDITS_PER_ROOM, started, latencies), rss: rssMb(server.child.pid) };
  } finally {
    for (const r of rooms) {
      r.writer.destroy();
      r.reader.destroy();
    }
  }
}

/**
 * The steady-rate rounds: every peer once per round, the order rotated each round, a fresh room each time. Rows:
 * each peer's medians of the rounds' p50, p99 and max; Hearth's p99 against the reference server's (goal ≤ 100 %).
 */
/** The stored-first floors (yws-reference-server.ts): the first is the one Hearth's row is compared with. */
const STORED_FLOORS = [
  ['stored', 'floor: the reference server storing each update first (one SQLite insert before the broadcast)'],
  ['stored-statements', "floor: the reference server storing each update first with Hearth's statements (row bumped, update appended, one transaction)"],
] as const;

async function steady(peers: Array<[string, Child, ConnectTo]>, reference: Child, hearth: Child, floor: Child): Promise<Row[]> {
  const results = new Map<Child, SteadyResult[]>(peers.map(([, server]) => [server, []]));
  for (let round = 0; round < STEADY.rounds; round++) {
    const order = peers.map((_, i) => peers[(i + round) % peers.length] as (typeof peers)[number]);
    for (const [name, server, connect] of order) {
      const result = await steadyRoom(connect, `steady-${round}`, server.child.pid);
      results.get(server)!.push(result);
      console.log(
        `  steady round ${round + 1}/${STEADY.rounds} ${name}: p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms, server CPU ${result.serverCpuUs ?? '?'} µs/edit, ${result.lateSends} late sends`,
      );
    }
  }
  const scenario = `a steady ${STEADY.rate} edits/s for ${STEADY.seconds} s, 1 writer → ${STEADY.readers} readers in one room, p99 propagation (median of ${STEADY.rounds} alternated rounds)`;
  const referenceRounds = results.get(reference)!;
  const referenceP99 = medianOf(referenceRounds.map((r) => r.p99));
  const floorRounds = results.get(floor)!;
  const floorP99 = medianOf(floorRounds.map((r) => r.p99));
  return peers.map(([name, server]) => {
    const rounds = results.get(server)!;
    const p99 = medianOf(rounds.map((r) => r.p99));
    const notes = [
      `rounds p50/p99/max ms: ${rounds.map((r) => `${r.p50}/${r.p99}/${r.max}`).join(', ')}`,
      `median max ${medianOf(rounds.map((r) => r.max))} ms`,
      `server CPU ${medianOf(rounds.map((r) => r.serverCpuUs ?? 0))} µs an edit`,
    ];
    if (server !== reference)
      notes.push(`p99 round by round, of the reference's: ${rounds.map((r, i) => `${Math.round((r.p99 / referenceRounds[i]!.p99) * 100)}%`).join(', ')}`);
    if (server === hearth)
      notes.push(
        `of the one-insert floor's (p99 ${floorP99} ms): ${Math.round((p99 / floorP99) * 100)}%, round by round ${rounds.map((r, i) => `${Math.round((r.p99 / floorRounds[i]!.p99) * 100)}%`).join(', ')}`,
      );
    const late = rounds.reduce((n, r) => n + r.lateSends, 0);
    if (late) notes.push(`${late} sends over 2 ms late in all`);
    return {
      scenario: `${name}: ${scenario}`,
      rps: 0,
      figure: p99,
      unit: 'ms',
      p50: medianOf(rounds.map((r) => r.p50)),
      p99,
      vs: notes.join('; '),
      ...(server === reference ? {} : { baseline: { scenario: 'reference server p99', figure: referenceP99 } }),
      ...(server === hearth ? { goal: { kind: 'ratio<=' as const, value: 1 } } : {}),
    };
  });
}

export async function run(): Promise<Row[]> {
  const only = chosenScenarios();
  // every y-websocket provider listens for the process' exit (to close its socket): 2,000 of them are expected here
  process.setMaxListeners(0);
  const rows: Row[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-crdt-'));
  const dataDirs = [dataDir];
  const started: Child[] = [];
  try {
    const reference = await startChild(['test/bench/yws-reference-server.ts']);
    started.push(reference);
    const hocuspocus = await startChild(['test/bench/hocuspocus-server.ts']);
    started.push(hocuspocus);
    const hearth = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
    started.push(hearth);
    const creds = readCredentials(dataDir);
    const baseDir = process.env.BENCH_CRDT_BASE;
    const baseDataDir = baseDir ? mkdtempSync(join(tmpdir(), 'hearth-bench-crdt-base-')) : undefined;
    if (baseDataDir) dataDirs.push(baseDataDir);
    const base = baseDir && baseDataDir ? await startChild([join(baseDir, 'dist', 'server', 'cli.js'), '--port', '0', '--data-dir', baseDataDir]) : undefined;
    if (base) started.push(base);
    const peers: Array<[string, Child, ConnectTo]> = [
      ['reference server (memory only)', reference, (room) => yWebsocketClient(reference.url.replace('http', 'ws'), room, {})],
      ['Hocuspocus (SQLite, whole state stored debounced 2 s)', hocuspocus, (room) => hocuspocusClient(hocuspocus.url.replace('http', 'ws'), room)],
      [
        'Hearth (every update persisted first)',
        hearth,
        (room) => yWebsocketClient(hearth.url.replace('http', 'ws') + '/yjs', `org/${room}/editor`, { apiKey: creds.apiKey, authToken: creds.authToken }),
      ],
    ];
    if (base && baseDataDir) {
      const baseCreds = readCredentials(baseDataDir);
      peers.push([
        `Hearth built from ${baseDir} (base of an A/B)`,
        base,
        (room) => yWebsocketClient(base.url.replace('http', 'ws') + '/yjs', `org/${room}/editor`, { apiKey: baseCreds.apiKey, authToken: baseCreds.authToken }),
      ]);
    }

    for (const [key, scenario, measure, updates] of [
      ['one-room', `${EDITS.toLocaleString('en-US')} edits to ${READERS} readers in one room`, oneRoom, 'edits/s'],
      ['many-rooms', `${ROOMS.toLocaleString('en-US')} rooms × (1 writer + 1 reader), ${EDITS_PER_ROOM} edits each`, manyRooms, 'updates/s'],
    ] as const) {
      if (!only.has(key)) continue;
      let referenceRps = 0;
      for (const [name, server, connect] of peers) {
        const result = await measure(connect, server);
        if (server === reference) referenceRps = result.rps;
        rows.push({
          scenario: `${name}: ${scenario}`,
          rps: result.rps,
          p50: result.p50,
          p99: result.p99,
          unit: updates,
          vs: `server RSS ${result.rss} MB after`,
          ...(server === reference ? {} : { baseline: { scenario: 'reference server', figure: referenceRps } }),
          ...(server === hearth ? { goal: { kind: 'ratio>=' as const, value: 1 } } : {}),
        });
      }
    }

    if (only.has('steady')) {
      const floors: Array<[string, Child, ConnectTo]> = [];
      for (const [mode, name] of STORED_FLOORS) {
        const dir = mkdtempSync(join(tmpdir(), `hearth-bench-crdt-${mode}-`));
        dataDirs.push(dir);
        const floor = await startChild(['test/bench/yws-reference-server.ts', mode, dir]);
        started.push(floor);
        floors.push([name, floor, (room) => yWebsocketClient(floor.url.replace('http', 'ws'), room, {})]);
      }
      rows.push(...(await steady([...peers, ...floors], reference, hearth, floors[0]![1])));
    }

    const headers = { 'content-type': 'application/json', ...authHeaders(creds) };
    const post = (path: string, data: unknown) => fetch(hearth.url + path, { method: 'POST', headers, body: JSON.stringify({ data }) }).then((r) => r.json());
    if (only.has('rest')) await restUpdate(post, rows);
    if (only.has('memory')) await memoryPerDocument(post, hearth, rows);
  } finally {
    for (const child of started) await stopChild(child.child);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

type Post = (path: string, data: unknown) => Promise<unknown>;

async function restUpdate(post: Post, rows: Row[]) {
  const base = 'x'.repeat(100 * 1024);
  await post('/v2/crdt/add', { organizationId: 'org', documentId: 'doc', editorId: 'big', type: 'text', data: base });
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const text = base.slice(0, 50_000) + `edit ${i}` + base.slice(50_000);
    const t0 = performance.now();
    await post('/v2/crdt/update', { organizationId: 'org', documentId: 'doc', editorId: 'big', type: 'text', data: text });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  rows.push({
    scenario: 'Hearth REST crdt/update of a 100 KB text, small change (sequential)',
    rps: 1000 / percentile(times, 50),
    p50: Math.round(percentile(times, 50)),
    p99: Math.round(percentile(times, 99)),
  });
}

async function memoryPerDocument(post: Post, hearth: Child, rows: Row[]) {
  // memory per loaded document: the server's RSS before and after loading 5,000 small text documents (enough
  // that the growth stands above the garbage collector's swings)
  const before = rssMb(hearth.child.pid);
  for (let i = 0; i < 5000; i++)
    await post('/v2/crdt/add', { organizationId: 'org', documentId: `mem-${i}`, editorId: 'e', type: 'text', data: 'a short paragraph of text, '.repeat(8) });
  const perDocumentKiB = ((rssMb(hearth.child.pid) - before) * 1024) / 5000;
  rows.push({
    scenario: 'Hearth RSS growth per loaded document (5,000 loaded, ~200 B of text each)',
    rps: 0,
    p50: 0,
    p99: 0,
    figure: Math.round(perDocumentKiB * 10) / 10,
    unit: 'KiB',
  });
}
