// Where Hearth's memory goes around the editing trace (issue 46): the built server started with --expose-gc and
// --inspect, the automerge-paper trace (or a prefix, BENCH_TRACE_EDITS) replayed open-loop by one writer with one
// reader, then, through the inspector: process.memoryUsage() after a full garbage collection, and a heap snapshot
// summed by constructor (self sizes), at the idle start, with the document loaded after the trace, and after it
// unloads (30 s crdtIdleMs, 5 s sweep) plus a minute. What the JavaScript heap holds against what the process
// keeps resident tells a retained object from memory the allocator has not handed back.
// `npx tsx test/bench/trace-memory.ts` (after `node scripts/build.mjs`).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { yWebsocketClient } from './crdt-clients.ts';
import { BUILT_CLI, ROOT, readCredentials, rssMb } from './harness.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const trace = JSON.parse(gunzipSync(readFileSync(join(ROOT, '..', 'shared', 'data', 'editing-traces', 'automerge-paper.json.gz'))).toString('utf8')) as {
  endContent: string;
  txns: Array<{ patches: Array<[number, number, string]> }>;
};
const edits = Number(process.env.BENCH_TRACE_EDITS ?? trace.txns.length);
const txns = trace.txns.slice(0, edits);

const dataDir = mkdtempSync(join(tmpdir(), 'hearth-trace-memory-'));
const child = spawn(process.execPath, ['--expose-gc', '--inspect=127.0.0.1:0', BUILT_CLI, '--port', '0', '--data-dir', dataDir], {
  cwd: ROOT,
  env: { ...process.env, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const inspectorUrl = await new Promise<string>((resolve) => {
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
    const m = err.match(/ws:\/\/\S+/);
    if (m) resolve(m[0]);
  });
});
const port = await new Promise<number>((resolve) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/API\s+http:\/\/127\.0\.0\.1:(\d+)/);
    if (m) resolve(Number(m[1]));
  });
});

const inspector = new WebSocket(inspectorUrl);
await new Promise((resolve) => inspector.once('open', resolve));
let nextId = 1;
const waiting = new Map<number, (result: unknown) => void>();
let chunks: string[] = [];
inspector.on('message', (data: Buffer) => {
  const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: { chunk: string }; result?: unknown };
  if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params!.chunk);
  else if (message.id !== undefined) waiting.get(message.id)?.(message.result);
});
const call = (method: string, params: object = {}) =>
  new Promise<unknown>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    inspector.send(JSON.stringify({ id, method, params }));
  });
const evaluate = async (expression: string) =>
  ((await call('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value: unknown } }).result.value;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Memory after a full collection, and the heap's self sizes summed by constructor (the largest). */
async function look(label: string) {
  await evaluate('gc(); gc(); 0');
  const usage = (await evaluate('JSON.stringify(process.memoryUsage())')) as string;
  const u = JSON.parse(usage) as NodeJS.MemoryUsage;
  chunks = [];
  await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  const snap = JSON.parse(chunks.join('')) as Snapshot;
  chunks = [];
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const by = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name = type === 'object' || type === 'native' ? snap.strings[snap.nodes[i + nameAt]!]! : `(${type})`;
    const entry = by.get(name) ?? { size: 0, count: 0 };
    entry.size += snap.nodes[i + sizeAt]!;
    entry.count++;
    by.set(name, entry);
  }
  const top = [...by].sort((a, b) => b[1].size - a[1].size).slice(0, 12);
  console.log(
    `\n${label}: RSS ${rssMb(child.pid)} MB; heap used ${mb(u.heapUsed)} of ${mb(u.heapTotal)} MB, external ${mb(u.external)} MB (array buffers ${mb(u.arrayBuffers)} MB)`,
  );
  for (const [name, { size, count }] of top) console.log(`  ${mb(size).toFixed(1).padStart(7)} MB  ${String(count).padStart(8)}  ${name.slice(0, 80)}`);
}

try {
  const creds = readCredentials(dataDir);
  const ws = `ws://127.0.0.1:${port}/yjs`;
  const params = { apiKey: creds.apiKey, authToken: creds.authToken };
  await sleep(1000);
  await look('idle, at start');
  const writer = yWebsocketClient(ws, 'org/trace/editor', params);
  const reader = yWebsocketClient(ws, 'org/trace/editor', params);
  await Promise.all([writer.synced, reader.synced]);
  const text = writer.doc.getText('content');
  let end = '';
  for (const txn of txns) for (const [at, deleted, inserted] of txn.patches) end = end.slice(0, at) + inserted + end.slice(at + deleted);
  const done = new Promise<void>((resolve) => {
    const t = reader.doc.getText('content');
    const check = () => t.length === end.length && t.toString() === end && resolve();
    reader.doc.on('afterTransaction', check);
  });
  for (const [i, txn] of txns.entries()) {
    writer.doc.transact(() => {
      for (const [at, deleted, inserted] of txn.patches) {
        if (deleted > 0) text.delete(at, deleted);
        if (inserted) text.insert(at, inserted);
      }
    });
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  await done;
  console.log(`\n${txns.length} edits replayed; the reader holds the end text`);
  await look('after the trace, document loaded, clients connected');
  writer.destroy();
  reader.destroy();
  await sleep(36_000);
  await look('document unloaded (30 s idle, 5 s sweep)');
  await sleep(60_000);
  await look('a minute after the unload');
} finally {
  inspector.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit();
