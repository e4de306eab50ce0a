// A real editing trace replayed open-loop (issue 46): the automerge-paper trace (259,778 single-character edits,
// ../shared/data/editing-traces/, see its README; Martin Kleppmann's, republished in josephg/editing-traces), one Yjs
// update per edit sent through a y-websocket client as fast as it can (no window: the writer never waits for the
// server), one reader following. Side by side with the y-websocket reference server (memory only) and Hocuspocus,
// fresh servers each round, the order rotated round by round. Reported per server: the time from the first edit
// sent until the reader holds the end text, the server's CPU time meanwhile, its peak RSS (VmHWM), and for Hearth
// the RSS a minute after the document unloads against its idle floor. The end text is checked exactly: the reader,
// a late client, and for Hearth REST crdt/get and a client after a restart of the server.
// Then the synthetic open-loop burst over the same path: 100,000 small updates as fast as the writer can, and a
// client back online sending the 20,000 updates it made offline back to back.
// BENCH_TRACE_ROUNDS (3), BENCH_TRACE=trace,burst,offline (all), BENCH_TRACE_EDITS (all: a prefix of the trace, for a
// short run; the end text is then the prefix's), BENCH_TRACE_BURST (100,000), BENCH_TRACE_OFFLINE (20,000),
// BENCH_TRACE_UNLOAD=0 skips the minute after unload (measured in the last round only: it takes 96 s).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { hocuspocusClient, yWebsocketClient, type Client } from '../crdt-clients.ts';
import { authHeaders, cpuMicros, readCredentials, ROOT, rssMb, startChild, stopChild, type Child, type Row } from '../harness.ts';

export const title = 'Editing trace open-loop (automerge-paper, 259,778 edits) and open-loop bursts, Hearth vs the reference server and Hocuspocus';

const TRACE_FILE = join(ROOT, '..', 'shared', 'data', 'editing-traces', 'automerge-paper.json.gz');
const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const ROUNDS = Math.floor(num('BENCH_TRACE_ROUNDS', 3));
const BURST = Math.floor(num('BENCH_TRACE_BURST', 100_000));
const OFFLINE = Math.floor(num('BENCH_TRACE_OFFLINE', 20_000));
/** Past this, a reader still short of the end means a lost update: fail with what arrived rather than hang. */
const TIMEOUT_MS = 600_000;
/** The writer lets its socket write every so many edits (open loop: it never waits for the server). */
const YIELD_EVERY = 1000;

type Scenario = 'trace' | 'burst' | 'offline';
function chosen(): Set<Scenario> {
  const asked = process.env.BENCH_TRACE?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return new Set((asked?.length ? asked : ['trace', 'burst', 'offline']) as Scenario[]);
}

interface Trace {
  endContent: string;
  txns: Array<{ patches: Array<[number, number, string]> }>;
}

function loadTrace(): Trace {
  const trace = JSON.parse(gunzipSync(readFileSync(TRACE_FILE)).toString('utf8')) as Trace & { startContent: string };
  if (trace.startContent !== '') throw new Error('the trace does not start empty');
  const edits = process.env.BENCH_TRACE_EDITS ? Math.floor(num('BENCH_TRACE_EDITS', trace.txns.length)) : trace.txns.length;
  if (edits >= trace.txns.length) return trace;
  // a prefix: its end text, replayed as a string
  let text = '';
  const txns = trace.txns.slice(0, edits);
  for (const txn of txns) for (const [at, deleted, inserted] of txn.patches) text = text.slice(0, at) + inserted + text.slice(at + deleted);
  return { endContent: text, txns };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const yieldToSocket = () => new Promise<void>((resolve) => setImmediate(resolve));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

/** Peak resident set size of a process in MB (VmHWM), from /proc (Linux). */
function peakRssMb(pid: number | undefined): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}
const cpuSeconds = (pid: number | undefined) => {
  const c = cpuMicros(pid as number);
  return (c.user + c.system) / 1e6;
};

/** Resolves once `text` (the reader's) is `length` long and reads `end`; checks only when the length matches. */
function holds(client: Client, root: string, end: string): Promise<void> {
  const text = client.doc.getText(root);
  const reached = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`stalled: the reader has ${text.length} of ${end.length} characters after ${TIMEOUT_MS / 1000} s`)),
      TIMEOUT_MS,
    );
    const look = () => {
      if (text.length === end.length && text.toString() === end) {
        clearTimeout(timer);
        client.doc.off('afterTransaction', look);
        resolve();
      }
    };
    client.doc.on('afterTransaction', look);
    look();
  });
  // awaited once the writer is done: a stall found while it still sends fails the round then, not the process
  reached.catch(() => undefined);
  return reached;
}

/** A peer of the comparison: how to start a fresh one, connect a client, and (Hearth) read and restart it. */
interface Peer {
  name: string;
  start(): Promise<Started>;
}
interface Started {
  child: Child;
  connect(room: string): Client;
  /** Raw y-websocket (or Hocuspocus) frames carrying updates, sent back to back on a new socket. */
  sendRaw(room: string, updates: Uint8Array[]): Promise<() => void>;
  /** Hearth: the text REST crdt/get answers. */
  restText?(room: string): Promise<string>;
  /** Hearth: stops the server and starts it again on the same data dir. */
  restart?(): Promise<Started>;
  stop(): Promise<void>;
}

function ywsFrames(updates: Uint8Array[]): Uint8Array[] {
  return updates.map((update) => {
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, 0);
    syncProtocol.writeUpdate(e, update);
    return encoding.toUint8Array(e);
  });
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const reference: Peer = {
  name: 'reference server (memory only)',
  async start() {
    const child = await startChild(['test/bench/yws-reference-server.ts']);
    const ws = child.url.replace('http', 'ws');
    return {
      child,
      connect: (room) => yWebsocketClient(ws, room, {}),
      async sendRaw(room, updates) {
        const socket = await openSocket(`${ws}/${room}`);
        for (const frame of ywsFrames(updates)) socket.send(frame);
        return () => socket.close();
      },
      stop: () => stopChild(child.child),
    };
  },
};

const hocuspocus: Peer = {
  name: 'Hocuspocus (SQLite, whole state stored debounced 2 s)',
  async start() {
    const child = await startChild(['test/bench/hocuspocus-server.ts']);
    const ws = child.url.replace('http', 'ws');
    return {
      child,
      connect: (room) => hocuspocusClient(ws, room),
      async sendRaw(room, updates) {
        // Hocuspocus' framing (crdt-clients.ts): the document's name, the type, the payload; auth first
        const socket = await openSocket(ws);
        const frame = (type: number, write: (e: encoding.Encoder) => void) => {
          const e = encoding.createEncoder();
          encoding.writeVarString(e, room);
          encoding.writeVarUint(e, type);
          write(e);
          return encoding.toUint8Array(e);
        };
        socket.send(
          frame(2, (e) => {
            encoding.writeVarUint(e, 0);
            encoding.writeVarString(e, 'bench');
          }),
        );
        for (const update of updates) socket.send(frame(0, (e) => syncProtocol.writeUpdate(e, update)));
        return () => socket.close();
      },
      stop: () => stopChild(child.child),
    };
  },
};

function hearthAt(dataDir: string, child: Child): Started {
  const creds = readCredentials(dataDir);
  const ws = `${child.url.replace('http', 'ws')}/yjs`;
  const params = { apiKey: creds.apiKey, authToken: creds.authToken };
  return {
    child,
    connect: (room) => yWebsocketClient(ws, `org/${room}/editor`, params),
    async sendRaw(room, updates) {
      const socket = await openSocket(`${ws}/org/${room}/editor?${new URLSearchParams(params)}`);
      for (const frame of ywsFrames(updates)) socket.send(frame);
      return () => socket.close();
    },
    async restText(room) {
      const response = await fetch(`${child.url}/v2/crdt/get`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(creds) },
        body: JSON.stringify({ data: { organizationId: 'org', documentId: room, editorId: 'editor' } }),
      });
      const body = (await response.json()) as { result?: { data?: Array<{ data: unknown }> } };
      const data = body.result?.data?.[0]?.data;
      if (typeof data !== 'string') throw new Error(`crdt/get answered ${JSON.stringify(body).slice(0, 300)}`);
      return data;
    },
    async restart() {
      await stopChild(child.child);
      return hearthAt(dataDir, await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]));
    },
    async stop() {
      await stopChild(child.child);
    },
  };
}

const hearth: Peer = {
  name: 'Hearth (every update persisted first)',
  async start() {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-trace-'));
    const started = hearthAt(dataDir, await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]));
    // the data dir goes with the last incarnation
    const withCleanup = (s: Started): Started => ({
      ...s,
      restart: async () => withCleanup(await (s.restart as () => Promise<Started>)()),
      stop: async () => {
        await s.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    });
    return withCleanup(started);
  },
};

interface TraceResult {
  seconds: number;
  sendSeconds: number;
  cpu: number;
  peak: number;
  idle: number;
  afterUnload?: number;
  checks: string[];
}

/** A late client's text, once it has synced. */
async function lateText(server: Started, room: string, root: string): Promise<string> {
  const late = server.connect(room);
  try {
    await late.synced;
    return late.doc.getText(root).toString();
  } finally {
    late.destroy();
  }
}

/** One replay of the trace against a fresh server. */
async function traceRound(peer: Peer, trace: Trace, round: number): Promise<TraceResult> {
  let server = await peer.start();
  const isHearth = peer === hearth;
  const room = `trace-${round}`;
  const checks: string[] = [];
  try {
    await sleep(1000);
    const idle = rssMb(server.child.child.pid);
    const writer = server.connect(room);
    const reader = server.connect(room);
    await Promise.all([writer.synced, reader.synced]);
    const text = writer.doc.getText('content');
    const done = holds(reader, 'content', trace.endContent);
    const cpu0 = cpuSeconds(server.child.child.pid);
    const t0 = performance.now();
    for (const [i, txn] of trace.txns.entries()) {
      writer.doc.transact(() => {
        for (const [at, deleted, inserted] of txn.patches) {
          if (deleted > 0) text.delete(at, deleted);
          if (inserted) text.insert(at, inserted);
        }
      });
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToSocket();
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    await done;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.child.child.pid) - cpu0;
    const peak = peakRssMb(server.child.child.pid);
    checks.push('reader exact');
    if ((await lateText(server, room, 'content')) !== trace.endContent) throw new Error(`${peer.name}: a late client does not hold the end text`);
    checks.push('late client exact');
    if (server.restText) {
      if ((await server.restText(room)) !== trace.endContent) throw new Error(`${peer.name}: REST crdt/get does not answer the end text`);
      checks.push('REST exact');
    }
    writer.destroy();
    reader.destroy();
    let afterUnload: number | undefined;
    if (isHearth && round === ROUNDS - 1 && process.env.BENCH_TRACE_UNLOAD !== '0') {
      // unloaded 30 s after its last client leaves (crdtIdleMs), swept every 5 s; then a minute
      await sleep(36_000 + 60_000);
      afterUnload = rssMb(server.child.child.pid);
    }
    if (server.restart) {
      server = await server.restart();
      if ((await lateText(server, room, 'content')) !== trace.endContent) throw new Error(`${peer.name}: after a restart, a client does not get the end text`);
      checks.push('after restart exact');
    }
    return { seconds, sendSeconds, cpu, peak, idle, afterUnload, checks };
  } finally {
    await server.stop();
  }
}

/** The burst: `BURST` small updates (one array push each) as fast as the writer can; until the reader has them all. */
async function burstRound(peer: Peer, round: number) {
  const server = await peer.start();
  const room = `burst-${round}`;
  try {
    await sleep(1000);
    const writer = server.connect(room);
    const reader = server.connect(room);
    await Promise.all([writer.synced, reader.synced]);
    const cpu0 = cpuSeconds(server.child.child.pid);
    const t0 = performance.now();
    const done = countReaches(reader, BURST);
    const edits = writer.doc.getArray<number>('edits');
    for (let i = 0; i < BURST; i++) {
      edits.push([i]);
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToSocket();
    }
    await done;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.child.child.pid) - cpu0;
    const peak = peakRssMb(server.child.child.pid);
    writer.destroy();
    // a client back online: the updates it made offline, sent back to back on one socket
    const offline = new Y.Doc();
    Y.applyUpdate(offline, Y.encodeStateAsUpdate(reader.doc));
    const updates: Uint8Array[] = [];
    offline.on('update', (u: Uint8Array) => updates.push(u));
    const array = offline.getArray<number>('edits');
    for (let i = 0; i < OFFLINE; i++) array.push([BURST + i]);
    const reached = countReaches(reader, BURST + OFFLINE);
    const cpu1 = cpuSeconds(server.child.child.pid);
    const t1 = performance.now();
    const close = await server.sendRaw(room, updates);
    await reached;
    const offlineSeconds = (performance.now() - t1) / 1000;
    const offlineCpu = cpuSeconds(server.child.child.pid) - cpu1;
    close();
    const late = server.connect(room);
    await late.synced;
    const exact = late.doc.getArray<number>('edits').length === BURST + OFFLINE;
    late.destroy();
    reader.destroy();
    if (!exact) throw new Error(`${peer.name}: a late client does not hold the ${BURST + OFFLINE} edits`);
    return { seconds, cpu, peak, offlineSeconds, offlineCpu };
  } finally {
    await server.stop();
  }
}

function countReaches(client: Client, n: number): Promise<void> {
  const array = client.doc.getArray<number>('edits');
  const reached = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stalled: the reader has ${array.length} of ${n} edits`)), TIMEOUT_MS);
    const look = () => {
      if (array.length >= n) {
        clearTimeout(timer);
        client.doc.off('afterTransaction', look);
        resolve();
      }
    };
    client.doc.on('afterTransaction', look);
    look();
  });
  // awaited once the writer is done: a stall found while it still sends fails the round then, not the process
  reached.catch(() => undefined);
  return reached;
}

export async function run(): Promise<Row[]> {
  process.setMaxListeners(0);
  const only = chosen();
  const peers = [reference, hocuspocus, hearth];
  const rows: Row[] = [];
  if (only.has('trace')) {
    const trace = loadTrace();
    const results = new Map<Peer, TraceResult[]>(peers.map((p) => [p, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < peers.length; i++) {
        const peer = peers[(i + round) % peers.length] as Peer;
        const result = await traceRound(peer, trace, round);
        results.get(peer)!.push(result);
        console.log(
          `  trace round ${round + 1}/${ROUNDS} ${peer.name}: reader has the end text after ${r1(result.seconds)} s (writer sent in ${r1(result.sendSeconds)} s), server CPU ${r1(result.cpu)} s, peak RSS ${result.peak} MB, idle ${result.idle} MB${result.afterUnload === undefined ? '' : `, ${result.afterUnload} MB a minute after unload`}; ${result.checks.join(', ')}`,
        );
      }
    }
    const ref = results.get(reference)!;
    const scenario = `${trace.txns.length.toLocaleString('en-US')} edits of the automerge-paper trace open-loop, 1 writer + 1 reader (median of ${ROUNDS} alternated rounds, fresh servers)`;
    for (const peer of peers) {
      const rs = results.get(peer)!;
      const notes = `rounds s: ${rs.map((r) => r1(r.seconds)).join(', ')}; writer sent in ${rs.map((r) => r1(r.sendSeconds)).join(', ')} s; checks: ${rs[0]?.checks.join(', ')}`;
      const isRef = peer === reference;
      const goal = (value: number) => (peer === hearth ? { goal: { kind: 'ratio<=' as const, value } } : {});
      rows.push({
        scenario: `${peer.name}: ${scenario}, time until the reader holds the end text`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: r1(median(rs.map((r) => r.seconds))),
        unit: 's',
        vs: notes,
        ...(isRef ? {} : { baseline: { scenario: 'reference server', figure: r1(median(ref.map((r) => r.seconds))) } }),
        ...goal(1),
      });
      rows.push({
        scenario: `${peer.name}: ${scenario}, server CPU`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: r1(median(rs.map((r) => r.cpu))),
        unit: 's',
        vs: `rounds: ${rs.map((r) => r1(r.cpu)).join(', ')}`,
        ...(isRef ? {} : { baseline: { scenario: 'reference server', figure: r1(median(ref.map((r) => r.cpu))) } }),
        ...goal(1.3),
      });
      rows.push({
        scenario: `${peer.name}: ${scenario}, server peak RSS`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: r1(median(rs.map((r) => r.peak))),
        unit: 'MB',
        vs: `rounds: ${rs.map((r) => r.peak).join(', ')}; idle at start ${rs.map((r) => r.idle).join(', ')} MB`,
        ...(isRef ? {} : { baseline: { scenario: 'reference server', figure: r1(median(ref.map((r) => r.peak))) } }),
        ...goal(1.5),
      });
      const unloads = rs.flatMap((r) => (r.afterUnload === undefined ? [] : [{ after: r.afterUnload, idle: r.idle }]));
      if (unloads.length)
        rows.push({
          scenario: `${peer.name}: RSS a minute after the trace's document unloads, against the idle floor at start`,
          rps: 0,
          p50: 0,
          p99: 0,
          figure: r1(median(unloads.map((u) => u.after))),
          unit: 'MB',
          vs: `rounds: ${unloads.map((u) => `${u.after} (idle ${u.idle})`).join(', ')} MB`,
          baseline: { scenario: 'idle floor at start', figure: r1(median(unloads.map((u) => u.idle))) },
          goal: { kind: 'ratio<=', value: 1.2 },
        });
    }
  }
  if (only.has('burst') || only.has('offline')) {
    const results = new Map<Peer, Array<Awaited<ReturnType<typeof burstRound>>>>(peers.map((p) => [p, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < peers.length; i++) {
        const peer = peers[(i + round) % peers.length] as Peer;
        const result = await burstRound(peer, round);
        results.get(peer)!.push(result);
        console.log(
          `  burst round ${round + 1}/${ROUNDS} ${peer.name}: ${BURST} updates in ${r1(result.seconds)} s (server CPU ${r1(result.cpu)} s, peak RSS ${result.peak} MB); ${OFFLINE} offline updates at once in ${r1(result.offlineSeconds)} s (server CPU ${r1(result.offlineCpu)} s)`,
        );
      }
    }
    const ref = results.get(reference)!;
    for (const peer of peers) {
      const rs = results.get(peer)!;
      const isRef = peer === reference;
      rows.push({
        scenario: `${peer.name}: ${BURST.toLocaleString('en-US')} small updates open-loop, 1 writer + 1 reader, until the reader has them all (median of ${ROUNDS} alternated rounds)`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: r1(median(rs.map((r) => r.seconds))),
        unit: 's',
        vs: `rounds s: ${rs.map((r) => r1(r.seconds)).join(', ')}; server CPU ${rs.map((r) => r1(r.cpu)).join(', ')} s; peak RSS ${rs.map((r) => r.peak).join(', ')} MB`,
        ...(isRef ? {} : { baseline: { scenario: 'reference server', figure: r1(median(ref.map((r) => r.seconds))) } }),
        ...(peer === hearth ? { goal: { kind: 'ratio<=' as const, value: 1 } } : {}),
      });
      rows.push({
        scenario: `${peer.name}: a client back online sends its ${OFFLINE.toLocaleString('en-US')} offline updates at once, until the reader has them`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: r1(median(rs.map((r) => r.offlineSeconds))),
        unit: 's',
        vs: `rounds s: ${rs.map((r) => r1(r.offlineSeconds)).join(', ')}; server CPU ${rs.map((r) => r1(r.offlineCpu)).join(', ')} s`,
        ...(isRef ? {} : { baseline: { scenario: 'reference server', figure: r1(median(ref.map((r) => r.offlineSeconds))) } }),
        ...(peer === hearth ? { goal: { kind: 'ratio<=' as const, value: 1 } } : {}),
      });
    }
  }
  return rows;
}
