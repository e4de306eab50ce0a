// Sync throughput and propagation latency, Hearth (which persists every update before broadcasting it) vs
// the y-websocket reference server (memory only) and Hocuspocus (SQLite, whole state stored debounced), in one
// run: one room, 1 writer and 50 readers; then the latency of a REST update on a 100 KB text.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { ratio, startChild, type Row } from '../harness.ts';

export const title = 'CRDT sync: one room, 1 writer and 50 readers; REST update of a 100 KB text';

const READERS = 50;
const EDITS = 2000;

interface Client {
  doc: Y.Doc;
  synced: Promise<void>;
  destroy(): void;
}
type Connect = () => Client;

/** A y-websocket client (the provider editors use). */
function yWebsocketClient(url: string, room: string, params: Record<string, string>): Client {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(url, room, doc, { WebSocketPolyfill: WebSocket as never, params, disableBc: true });
  const synced = new Promise<void>((resolve) => provider.on('sync', (s: boolean) => s && resolve()));
  return { doc, synced, destroy: () => provider.destroy() };
}

// Hocuspocus frames every message as varString(document name), varUint(type), payload; a connection starts
// with an Auth message carrying a token. Only what the bench needs: auth, sync and updates (no awareness).
const HP_SYNC = 0;
const HP_AUTH = 2;
const HP_SYNC_REPLY = 4;

/** A Hocuspocus client speaking its wire protocol (what @hocuspocus/provider sends), with y-protocols' sync. */
function hocuspocusClient(url: string, name: string): Client {
  const doc = new Y.Doc();
  const ws = new WebSocket(url);
  const frame = (type: number, write: (e: encoding.Encoder) => void) => {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, name);
    encoding.writeVarUint(e, type);
    write(e);
    return encoding.toUint8Array(e);
  };
  let resolveSynced: () => void;
  const synced = new Promise<void>((r) => (resolveSynced = r));
  ws.on('open', () => {
    ws.send(frame(HP_AUTH, (e) => {
      encoding.writeVarUint(e, 0); // AuthMessageType.Token
      encoding.writeVarString(e, 'bench');
    }));
    ws.send(frame(HP_SYNC, (e) => syncProtocol.writeSyncStep1(e, doc)));
  });
  ws.on('message', (data: Buffer) => {
    const d = decoding.createDecoder(new Uint8Array(data));
    decoding.readVarString(d);
    const type = decoding.readVarUint(d);
    if (type !== HP_SYNC && type !== HP_SYNC_REPLY) return;
    const reply = encoding.createEncoder();
    const kind = syncProtocol.readSyncMessage(d, reply, doc, ws);
    if (kind === syncProtocol.messageYjsSyncStep2) resolveSynced();
    if (encoding.length(reply) > 0) ws.send(frame(HP_SYNC_REPLY, (e) => encoding.writeUint8Array(e, encoding.toUint8Array(reply))));
  });
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== ws && ws.readyState === WebSocket.OPEN) ws.send(frame(HP_SYNC, (e) => syncProtocol.writeUpdate(e, update)));
  });
  return { doc, synced, destroy: () => ws.close() };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(connect: Connect) {
  const writer = connect();
  const readers = Array.from({ length: READERS }, connect);
  await Promise.all([writer.synced, ...readers.map((r) => r.synced)]);
  const sentAt: number[] = [];
  const latencies: number[] = [];
  let done = 0;
  const allDone = new Promise<void>((resolve) => {
    for (const reader of readers) {
      let seen = 0;
      reader.doc.getArray<number>('edits').observe((event) => {
        const now = performance.now();
        for (const item of event.changes.added) {
          for (const index of item.content.getContent() as number[]) {
            latencies.push(now - (sentAt[index] as number));
            seen++;
          }
        }
        if (seen === EDITS && ++done === READERS) resolve();
      });
    }
  });
  const started = performance.now();
  const edits = writer.doc.getArray<number>('edits');
  for (let i = 0; i < EDITS; i++) {
    sentAt[i] = performance.now();
    edits.push([i]);
    // let the socket breathe every few edits, as a typing user would
    if (i % 20 === 19) await new Promise((r) => setImmediate(r));
  }
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  for (const c of [writer, ...readers]) c.destroy();
  return { rps: EDITS / seconds, p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)) };
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-crdt-'));
  const reference = await startChild(['test/bench/yws-reference-server.ts']);
  const hocuspocus = await startChild(['test/bench/hocuspocus-server.ts']);
  const hearth = await startChild(['server/cli.ts', '--port', '0', '--data-dir', dataDir]);
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const ref = await measure(() => yWebsocketClient(reference.url.replace('http', 'ws'), 'room', {}));
    rows.push({ scenario: `reference server (memory only): ${EDITS} edits to ${READERS} readers (edits/s)`, ...ref });
    const hp = await measure(() => hocuspocusClient(hocuspocus.url.replace('http', 'ws'), 'room'));
    rows.push({ scenario: `Hocuspocus (SQLite, whole state stored debounced 2 s): ${EDITS} edits to ${READERS} readers (edits/s)`, ...hp, vs: `${ratio(hp.rps, ref.rps)} of the reference` });
    const own = await measure(() => yWebsocketClient(hearth.url.replace('http', 'ws') + '/yjs', 'org/doc/editor', { apiKey: creds.apiKey, authToken: creds.authToken }));
    rows.push({ scenario: `Hearth (every update persisted first): ${EDITS} edits to ${READERS} readers (edits/s)`, ...own, vs: `${ratio(own.rps, ref.rps)} of the reference (goal ≥ 100%), ${ratio(own.rps, hp.rps)} of Hocuspocus` });

    const headers = { 'content-type': 'application/json', 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken };
    const base = 'x'.repeat(100 * 1024);
    const post = (path: string, data: unknown) => fetch(hearth.url + path, { method: 'POST', headers, body: JSON.stringify({ data }) }).then((r) => r.json());
    await post('/v2/crdt/add', { organizationId: 'org', documentId: 'doc', editorId: 'big', type: 'text', data: base });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const text = base.slice(0, 50_000) + `edit ${i}` + base.slice(50_000);
      const t0 = performance.now();
      await post('/v2/crdt/update', { organizationId: 'org', documentId: 'doc', editorId: 'big', type: 'text', data: text });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    rows.push({ scenario: 'Hearth REST crdt/update of a 100 KB text, small change (sequential, ms)', rps: 1000 / percentile(times, 50), p50: Math.round(percentile(times, 50)), p99: Math.round(percentile(times, 99)) });

    // memory per loaded document: the server's RSS before and after loading 5,000 small text documents (enough
    // that the growth stands above the garbage collector's swings)
    const rss = () => Number(readFileSync(`/proc/${hearth.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
    const before = rss();
    for (let i = 0; i < 5000; i++) await post('/v2/crdt/add', { organizationId: 'org', documentId: `mem-${i}`, editorId: 'e', type: 'text', data: 'a short paragraph of text, '.repeat(8) });
    const perDocument = (rss() - before) / 5000;
    rows.push({ scenario: `Hearth RSS growth per loaded document (5,000 loaded, ~200 B of text each): ${(perDocument / 1024).toFixed(1)} KiB`, rps: 0, p50: 0, p99: 0 });
  } finally {
    reference.child.kill('SIGTERM');
    hocuspocus.child.kill('SIGTERM');
    hearth.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
