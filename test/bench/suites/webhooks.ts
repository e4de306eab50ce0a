// Webhooks: what an event costs the request that causes it, and how fast the outbox drains to receivers.
// Two Hearth servers run the same write load (notifications/add): one with no webhook configured (nothing is
// written to the outbox), one with advanced webhooks on and 10 endpoints on a local receiver.

import autocannon from 'autocannon';
import { DURATION, load, ratio, startChild, startHearth, type Row } from '../harness.ts';

/** Latency at a fixed rate from one connection, well under saturation: what the request itself pays for its event. */
async function atRate(url: string, headers: Record<string, string>, rate: number) {
  const options = { url: `${url}/v2/notifications/add`, method: 'POST' as const, body, headers: { 'content-type': 'application/json', ...headers }, connections: 1, overallRate: rate };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`notifications/add at ${rate}/s: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average };
}

const ENDPOINTS = 10;

const body = JSON.stringify({
  data: {
    organizationId: 'bench',
    createOrganization: true,
    documentId: 'doc',
    createDocument: true,
    actionUser: { userId: 'actor' },
    displayHeadlineMessageTemplate: '{actionUser} pinged you',
    displayBodyMessage: 'hello',
    notifyUsers: [{ userId: 'reader' }],
  },
});

/** The receiver runs in a child process (test/bench/webhook-receiver.ts): its work must not delay the load generator. */
async function startReceiver() {
  const child = await startChild(['test/bench/webhook-receiver.ts']);
  const stats = async () => (await fetch(`${child.url}/stats`).then((r) => r.json())) as { count: number; last: number };
  return {
    url: child.url,
    count: async () => (await stats()).count,
    last: async () => (await stats()).last,
    close: async () => {
      child.child.kill('SIGTERM');
    },
  };
}

/** Waits until the receiver has been quiet for 2 s. */
async function drained(receiver: { count(): Promise<number> }) {
  for (let quiet = 0; quiet < 2_000; ) {
    const seen = await receiver.count();
    await new Promise((resolve) => setTimeout(resolve, 250));
    quiet = (await receiver.count()) === seen ? quiet + 250 : 0;
  }
}

/**
 * The request's own share, without deliveries competing for the CPU: the notifications/add service call in this
 * process (no HTTP), with no receiver configured and with 10 endpoints (the event is written, nothing is sent).
 */
async function inProcess(): Promise<{ without: number; withEvent: number }> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { resolveConfig } = await import('../../../server/config.ts');
  const { openApp } = await import('../../../server/index.ts');
  const { ensureDefaultCredentials } = await import('../../../server/services/bootstrap.ts');
  const { addNotification } = await import('../../../server/services/notifications.ts');
  const { createEndpoint, updateAdvancedConfig } = await import('../../../server/services/webhooks.ts');
  const input = JSON.parse(body).data;
  const perCall = { without: [] as number[], withEvent: [] as number[] };
  for (const hooked of [false, true, false, true]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-emit-'));
    const app = openApp(resolveConfig({ dataDir, logLevel: 'silent' }));
    try {
      const { apiKey } = ensureDefaultCredentials(app);
      const key = app.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, apiKey) }).sync();
      if (!key) throw new Error('no API key');
      if (hooked) {
        updateAdvancedConfig(app, key.id, { isEnabled: true });
        for (let i = 0; i < ENDPOINTS; i++) createEndpoint(app, key.id, { url: `http://127.0.0.1:9/ep${i}` });
      }
      for (let i = 0; i < 300; i++) addNotification(app, key, input);
      const started = performance.now();
      for (let i = 0; i < 2000; i++) addNotification(app, key, input);
      (hooked ? perCall.withEvent : perCall.without).push((performance.now() - started) / 2000);
    } finally {
      app.crdt.close();
      app.sqlite.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { without: median(perCall.without), withEvent: median(perCall.withEvent) };
}

export const title = `Webhooks: request cost of an event, and outbox → ${ENDPOINTS} endpoints throughput`;

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const own = await inProcess();
  rows.push({ scenario: 'notifications/add service call in-process, no webhook configured', rps: 1000 / own.without, p50: Number(own.without.toFixed(3)), p99: 0 });
  rows.push({ scenario: `notifications/add service call in-process, writes an event for ${ENDPOINTS} endpoints (not sent)`, rps: 1000 / own.withEvent, p50: Number(own.withEvent.toFixed(3)), p99: 0, vs: `+${((own.withEvent / own.without - 1) * 100).toFixed(0)}% per call` });
  const receiver = await startReceiver();
  const plain = await startHearth();
  const hooked = await startHearth();
  try {
    await hooked.call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    for (let i = 0; i < ENDPOINTS; i++) await hooked.call('/v2/workspace/advancedwebhook/endpoints/create', { url: `${receiver.url}/ep${i}` });

    const RATE = 100;
    const calm = await atRate(plain.url, plain.headers, RATE);
    rows.push({ scenario: `notifications/add at ${RATE}/s, no webhook configured`, ...calm, vs: `mean ${calm.mean.toFixed(2)} ms` });
    const calmHooked = await atRate(hooked.url, hooked.headers, RATE);
    rows.push({ scenario: `notifications/add at ${RATE}/s, each writes an event for ${ENDPOINTS} endpoints`, ...calmHooked, vs: `mean ${calmHooked.mean.toFixed(2)} ms, ${ratio(calmHooked.mean, calm.mean)} of no webhook` });

    const without = await load(plain.url, '/v2/notifications/add', body, plain.headers);
    rows.push({ scenario: 'notifications/add saturated, no webhook configured', ...without });
    // drain what the calm run queued, then count the saturated run's deliveries from here
    await drained(receiver);
    const started = Date.now();
    const before = await receiver.count();
    const withEvents = await load(hooked.url, '/v2/notifications/add', body, hooked.headers);
    rows.push({ scenario: `notifications/add saturated, events for ${ENDPOINTS} endpoints (deliveries share the CPU)`, ...withEvents, vs: `p50 ${ratio(withEvents.p50 || 0.5, without.p50 || 0.5)}, req/s ${ratio(withEvents.rps, without.rps)} of no webhook` });

    await drained(receiver);
    const delivered = (await receiver.count()) - before;
    const seconds = ((await receiver.last()) - started) / 1000;
    const events = Math.round(delivered / ENDPOINTS);
    rows.push({ scenario: `deliveries sent (${events} events × ${ENDPOINTS} endpoints), incl. warm-up, until drained`, rps: delivered / seconds, p50: 0, p99: 0, vs: `${(delivered / ENDPOINTS / seconds).toFixed(0)} events/s fanned out` });
  } finally {
    plain.stop();
    hooked.stop();
    await receiver.close();
  }
  return rows;
}
