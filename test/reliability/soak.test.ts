// Soak: SOAK_SECONDS (300 by default) of steady mixed load (SOAK_RATE requests/s, 200 by default) against a
// child server: REST reads and writes, y-websocket edits from three clients, and webhook deliveries to a local
// receiver. RSS (/proc/<pid>/status VmRSS) and open file descriptors (/proc/<pid>/fd) are sampled every 2 s.
// After the warm-up (60 s, or a fifth of a shorter run) the mean RSS and the mean count of open file descriptors
// of the last window (60 s, or a third of what follows the warm-up) must be within 10 % of the first window's
// (garbage collection swings RSS, sockets come and go with the load); no answer may be an error; the p99
// latency of the last window must be within 2x of the first window's (a stability check, not a performance goal:
// the figures are printed, the bench has the goals).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { newDataDir, openFds, percentile, removeDataDir, rssMiB, startChild, type ChildServer } from './helpers/child.ts';
import { startFlakyReceiver, type FlakyReceiver } from './helpers/receiver.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const WARM_UP = Math.min(60, SECONDS / 5);
const WINDOW = Math.min(60, (SECONDS - WARM_UP) / 3);
const SAMPLE_MS = 2_000;
const HTTP_WORKERS = 4;
/**
 * Requests per second, all HTTP workers together: a steady load, the same on every machine. Unpaced, a fast
 * machine writes several times the data of a slow one in the same five minutes (every notifications/add and
 * crdt/update adds to what the server holds), and growth from more data is not a leak.
 */
const RATE = Number(process.env.SOAK_RATE ?? 200);
/** All three y-websocket clients type into the one text crdt/get reads (see wsEditor): its history grows all along. */
const SHARED_TEXT = process.env.SOAK_SHARED_TEXT === '1';
const ORG = 'soak-org';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let server: ChildServer;
let receiver: FlakyReceiver;
let dataDir: string;
beforeAll(async () => {
  dataDir = newDataDir('soak');
  receiver = await startFlakyReceiver({ failureRate: 0, maxDelayMs: 5 });
  server = await startChild(dataDir, { WEBHOOK_RETRY_SCHEDULE_MS: '0,100,200' });
  await server.callK('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: [{ documentId: 'doc' }] });
  await server.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  await server.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url, filterTypes: ['notification.add'] });
  await server.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', editorId: 'rest', type: 'map', data: { n: 0 } });
  await server.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', editorId: 'live', type: 'text', data: '' });
  // The Yjs worker thread starts once per process, on the first update or document over 64 KiB (server/crdt/
  // offload.ts): started here, before the load, as a server that has met one large document holds it. Its thread's
  // descriptors (4, and in a source tree those of the TypeScript loader's esbuild service: ~8 in all) are part of
  // the steady state, not a leak; left to start mid-run (a compaction of the live document's growing snapshot), they
  // read as +12.8 % between the windows.
  await server.callK('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', editorId: 'warm', type: 'text', data: '' });
  const warm = connectYjs(
    server.url,
    { organizationId: ORG, documentId: 'doc', editorId: 'warm' },
    { apiKey: server.credentials.apiKey, authToken: server.credentials.authToken },
  );
  try {
    await warm.synced;
    warm.doc.getText('content').insert(0, 'w'.repeat(70_000));
    const stored = async () =>
      String(dataOf<CrdtItem[]>(await server.callK('/v2/crdt/get', { organizationId: ORG, documentId: 'doc', editorId: 'warm' }))[0]?.data).length;
    const until = Date.now() + 20_000;
    while ((await stored()) !== 70_000) {
      if (Date.now() > until) throw new Error('the 70 KB warm-up update was not stored within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    warm.close();
  }
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  removeDataDir(dataDir);
});

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);

describe(`soak: ${SECONDS} s of mixed load`, () => {
  it('keeps RSS and file descriptors flat, answers without errors, and keeps p99 stable', async () => {
    const started = Date.now();
    const elapsed = () => (Date.now() - started) / 1000;
    const done = () => elapsed() >= SECONDS;
    const samples: Array<{ at: number; rss: number; fds: number }> = [];
    const latencies: Array<{ at: number; ms: number }> = [];
    const errors: string[] = [];
    const requestsByPath = new Map<string, number>();

    const operations: Array<[string, (i: number) => unknown]> = [
      ['/v2/notifications/get', () => ({ organizationId: ORG, documentId: 'doc', pageSize: 50 })],
      ['/v2/organizations/documents/get', () => ({ organizationId: ORG })],
      ['/v2/crdt/get', () => ({ organizationId: ORG, documentId: 'doc', editorId: 'live' })],
      [
        '/v2/notifications/add',
        (i) => ({
          organizationId: ORG,
          documentId: 'doc',
          actionUser: { userId: 'ann' },
          notifyUsers: [{ userId: 'bob' }],
          displayHeadlineMessageTemplate: 'soak',
          displayBodyMessage: `n${i}`,
        }),
      ],
      ['/v2/crdt/update', (i) => ({ organizationId: ORG, documentId: 'doc', editorId: 'rest', type: 'map', data: { n: i } })],
    ];
    const httpWorker = async (w: number) => {
      const interval = (1000 * HTTP_WORKERS) / RATE;
      let next = performance.now() + (w * interval) / HTTP_WORKERS;
      for (let i = w; !done(); i += HTTP_WORKERS) {
        // paced: each worker sends on its own schedule, skipping none if an answer came late
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        next += interval;
        const [path, data] = operations[i % operations.length]!;
        const t0 = performance.now();
        const res = await server.callK(path, data(i));
        latencies.push({ at: elapsed(), ms: performance.now() - t0 });
        requestsByPath.set(path, (requestsByPath.get(path) ?? 0) + 1);
        if (res.status !== 200 && errors.length < 20) errors.push(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    const room = { organizationId: ORG, documentId: 'doc', editorId: 'live' };
    const creds = { apiKey: server.credentials.apiKey, authToken: server.credentials.authToken };
    const clients = [connectYjs(server.url, room, creds), connectYjs(server.url, room, creds), connectYjs(server.url, room, creds)];
    let edits = 0;
    const wsEditor = async (client: (typeof clients)[number], k: number) => {
      await client.synced;
      // Each client types into its own text of the shared document (the first into the one crdt/get reads): a
      // bounded document, since the soak measures the server, not a document that grows for five minutes. Three
      // clients typing into one text interleave their characters, which Yjs keeps as one item each, deleted or
      // not: that document's structure grew by ~130 items/s, and crdt/get (Y.Text toString walks every item) and
      // each stored edit (the row with the growing snapshot is rewritten) cost more every minute: 0.2 -> 8.8 s of
      // CPU per minute in crdt/get alone, p99 doubling. SOAK_SHARED_TEXT=1 runs that workload.
      const text = client.doc.getText(k === 0 || SHARED_TEXT ? 'content' : `lane-${k}`);
      while (!done()) {
        if (text.length > 2_000) text.delete(0, 1_000);
        text.insert(text.length, 'x');
        edits++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const sampler = async () => {
      while (!done()) {
        samples.push({ at: elapsed(), rss: rssMiB(server.pid), fds: openFds(server.pid) });
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    };
    try {
      await Promise.all([sampler(), ...Array.from({ length: HTTP_WORKERS }, (_, w) => httpWorker(w)), ...clients.map((c, k) => wsEditor(c, k))]);
      // the clients converge on what the server stored, and on each other's texts
      const stored = await server.callK('/v2/crdt/get', room);
      await expect
        .poll(() => clients.map((c) => c.doc.getText('content').toString()), { timeout: 10_000 })
        .toEqual(clients.map(() => dataOf<CrdtItem[]>(stored)[0]!.data));
      for (const lane of ['lane-1', 'lane-2']) {
        await expect.poll(() => new Set(clients.map((c) => c.doc.getText(lane).toString())).size, { timeout: 10_000 }).toBe(1);
      }
    } finally {
      for (const c of clients) c.close();
    }

    const first = (at: number) => at >= WARM_UP && at < WARM_UP + WINDOW;
    const last = (at: number) => at >= SECONDS - WINDOW;
    const firstSamples = samples.filter((s) => first(s.at));
    const lastSamples = samples.filter((s) => last(s.at));
    const rssFirst = mean(firstSamples.map((s) => s.rss));
    // Compared by window means, like descriptors: the heaps' collections swing RSS by up to ~60 MiB within a
    // minute, so the last window's maximum measured that sawtooth rather than growth. The minimum of each minute
    // is printed too: its trend is the plainest sign of growth.
    const rssLast = mean(lastSamples.map((s) => s.rss));
    const fdsFirst = mean(firstSamples.map((s) => s.fds));
    // Open sockets come and go with the load (keep-alive connections, the delivery worker's pool of up to 16):
    // a leak of descriptors shows in the window's mean, a burst of sockets only in its maximum.
    const fdsLast = mean(lastSamples.map((s) => s.fds));
    const p99First = percentile(
      latencies.filter((l) => first(l.at)).map((l) => l.ms),
      99,
    );
    const p99Last = percentile(
      latencies.filter((l) => last(l.at)).map((l) => l.ms),
      99,
    );
    const perMinute: string[] = [];
    for (let m = 0; m * 60 < SECONDS; m++) {
      const inMinute = latencies.filter((l) => l.at >= m * 60 && l.at < (m + 1) * 60).map((l) => l.ms);
      const s = samples.filter((x) => x.at >= m * 60 && x.at < (m + 1) * 60);
      perMinute.push(
        `minute ${m + 1}: ${inMinute.length} requests, p50 ${percentile(inMinute, 50).toFixed(1)} ms, p99 ${percentile(inMinute, 99).toFixed(1)} ms, RSS ${Math.min(...s.map((x) => x.rss))}-${Math.max(...s.map((x) => x.rss))} MiB, fds ${Math.min(...s.map((x) => x.fds))}-${Math.max(...s.map((x) => x.fds))}`,
      );
    }
    console.log(
      [
        `soak: ${SECONDS} s at ${RATE} requests/s, ${latencies.length} requests (${[...requestsByPath].map(([p, n]) => `${p} ${n}`).join(', ')}), ${edits} y-websocket edits, ${receiver.deliveries.length} webhook deliveries; errors: ${errors.length}`,
        `  warm-up ${WARM_UP} s; first window ${WARM_UP}-${WARM_UP + WINDOW} s vs last window ${SECONDS - WINDOW}-${SECONDS} s`,
        `  RSS: mean ${rssFirst.toFixed(1)} MiB -> mean ${rssLast.toFixed(1)} MiB (${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)} %)`,
        `  fds: mean ${fdsFirst.toFixed(1)} -> mean ${fdsLast.toFixed(1)} (${(((fdsLast - fdsFirst) / fdsFirst) * 100).toFixed(1)} %)`,
        `  p99: ${p99First.toFixed(1)} ms -> ${p99Last.toFixed(1)} ms`,
        ...perMinute.map((line) => `  ${line}`),
      ].join('\n'),
    );
    expect(errors).toEqual([]);
    expect(receiver.deliveries.length).toBeGreaterThan(0);
    expect(rssLast).toBeLessThanOrEqual(rssFirst * 1.1);
    expect(fdsLast).toBeLessThanOrEqual(fdsFirst * 1.1);
    expect(p99Last).toBeLessThanOrEqual(p99First * 2);
  });
});
