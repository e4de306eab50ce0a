// Webhooks: what an event costs the request that causes it, and how fast the outbox drains to receivers.
// Two Hearth servers run the same write load (notifications/add): one with no webhook configured (nothing is
// written to the outbox), one with advanced webhooks on and 10 endpoints on a local receiver.

import autocannon from 'autocannon';
import { DURATION, load, notificationAddBody, startChild, startHearth, type Row } from '../harness.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

/** Latency at a fixed rate from one connection, well under saturation: what the request itself pays for its event. */
async function atRate(url: string, headers: Record<string, string>, rate: number) {
  const options = {
    url: `${url}/v2/notifications/add`,
    method: 'POST' as const,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections: 1,
    overallRate: rate,
  };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`notifications/add at ${rate}/s: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average };
}

const ENDPOINTS = 10;

const body = notificationAddBody('bench');

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
  const { tenantScope } = await import('../../../server/db/scope.ts');
  const { createEndpoint, updateAdvancedConfig } = await import('../../../server/services/webhooks.ts');
  const input = JSON.parse(body).data;
  const perCall = { without: [] as number[], withEvent: [] as number[] };
  for (const hooked of [false, true, false, true, false, true]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-emit-'));
    const app = await openApp(resolveConfig({ dataDir, logLevel: 'silent' }));
    try {
      const { apiKey } = await ensureDefaultCredentials(app);
      const key = sqliteEngineOf(app.storage)
        .main.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, apiKey) })
        .sync();
      if (!key) throw new Error('no API key');
      const scope = tenantScope(key.id, key.workspaceId);
      if (hooked) {
        await updateAdvancedConfig(app, scope, { isEnabled: true });
        for (let i = 0; i < ENDPOINTS; i++) await createEndpoint(app, scope, { url: `http://127.0.0.1:9/ep${i}` });
      }
      for (let i = 0; i < 300; i++) await addNotification(app, scope, key, input);
      const started = performance.now();
      for (let i = 0; i < 2000; i++) await addNotification(app, scope, key, input);
      (hooked ? perCall.withEvent : perCall.without).push((performance.now() - started) / 2000);
    } finally {
      app.crdt.close();
      await app.storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return { without: median(perCall.without), withEvent: median(perCall.withEvent) };
}

export const title = `Webhooks: request cost of an event, and outbox → ${ENDPOINTS} endpoints throughput`;

/** A second API key of the server's default workspace (workspace credentials, header set A), with its auth token. */
async function secondKey(server: Awaited<ReturnType<typeof startHearth>>): Promise<Record<string, string>> {
  const workspace = {
    'content-type': 'application/json',
    'x-svc-workspace-id': server.creds.workspaceId,
    'x-svc-workspace-auth-token': server.creds.workspaceAuthToken,
  };
  const post = async (path: string, data: unknown) => {
    const res = await fetch(server.url + path, { method: 'POST', headers: workspace, body: JSON.stringify({ data }) });
    const answer = (await res.json()) as { result?: { data: any }; error?: unknown };
    if (!answer.result) throw new Error(`${path}: ${JSON.stringify(answer.error)}`);
    return answer.result.data;
  };
  const { apiKey } = await post('/v2/workspace/apikey/create', {
    ownerEmail: 'bench@example.com',
    type: 'testing',
    createAuthToken: true,
    apiKeyName: 'no webhooks',
  });
  const [token] = (await post('/v2/workspace/authtokens/get', { apiKey })).authTokens as Array<{ token: string }>;
  return { 'content-type': 'application/json', 'x-svc-api-key': apiKey, 'x-svc-auth-token': token!.token };
}

/**
 * The goal's own measure: on one server, at the same time, requests that emit an event (a key with 10 endpoints,
 * each event delivered meanwhile) and requests that do not (another key, no webhook), each at `rate`/s from its
 * own connection. Both share the machine and whatever the deliveries cost it; what differs is the event itself.
 */
async function sideBySide(url: string, withEvents: Record<string, string>, without: Record<string, string>, rate: number) {
  const [a, b] = await Promise.all([atRate(url, withEvents, rate), atRate(url, without, rate)]);
  return { withEvents: a, without: b };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const own = await inProcess();
  const plainCall = { scenario: 'notifications/add service call in-process, no webhook configured', figure: own.without };
  rows.push({ ...plainCall, rps: 1000 / own.without, p50: Number(own.without.toFixed(3)), p99: 0, unit: 'ms' });
  rows.push({
    scenario: `notifications/add service call in-process, writes an event for ${ENDPOINTS} endpoints (not sent)`,
    rps: 1000 / own.withEvent,
    p50: Number(own.withEvent.toFixed(3)),
    p99: 0,
    figure: own.withEvent,
    unit: 'ms',
    baseline: plainCall,
    vs: `+${((own.withEvent / own.without - 1) * 100).toFixed(1)}% per call (the outbox row in the change's transaction)`,
  });
  const receiver = await startReceiver();
  const plain = await startHearth();
  const hooked = await startHearth();
  try {
    await hooked.call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    for (let i = 0; i < ENDPOINTS; i++) await hooked.call('/v2/workspace/advancedwebhook/endpoints/create', { url: `${receiver.url}/ep${i}` });

    // Alternating rounds, so that a change in the machine's load falls on both sides.
    const RATE = 100;
    const calm: Array<Awaited<ReturnType<typeof atRate>>> = [];
    const busy: Array<Awaited<ReturnType<typeof atRate>>> = [];
    for (let round = 0; round < 3; round++) {
      calm.push(await atRate(plain.url, plain.headers, RATE));
      busy.push(await atRate(hooked.url, hooked.headers, RATE));
    }
    const calmMean = median(calm.map((r) => r.mean));
    const busyMean = median(busy.map((r) => r.mean));
    const calmRow = { scenario: `notifications/add at ${RATE}/s, no webhook configured (mean latency, median of 3 rounds)`, figure: calmMean };
    rows.push({ ...calmRow, rps: median(calm.map((r) => r.rps)), p50: median(calm.map((r) => r.p50)), p99: median(calm.map((r) => r.p99)), unit: 'ms' });
    rows.push({
      scenario: `notifications/add at ${RATE}/s, each event delivered to ${ENDPOINTS} endpoints meanwhile, vs a server with no webhook (mean latency, median of 3 rounds; the deliveries share the 2 cores)`,
      rps: median(busy.map((r) => r.rps)),
      p50: median(busy.map((r) => r.p50)),
      p99: median(busy.map((r) => r.p99)),
      figure: busyMean,
      unit: 'ms',
      baseline: calmRow,
      vs: `rounds: ${busy.map((r, i) => `${r.mean.toFixed(2)} vs ${calm[i]!.mean.toFixed(2)}`).join(', ')} ms`,
    });

    const quietKey = await secondKey(hooked);
    const pairs: Array<Awaited<ReturnType<typeof sideBySide>>> = [];
    for (let round = 0; round < 3; round++) pairs.push(await sideBySide(hooked.url, hooked.headers, quietKey, RATE / 2));
    const noEventMean = median(pairs.map((p) => p.without.mean));
    const eventMean = median(pairs.map((p) => p.withEvents.mean));
    const noEventRow = {
      scenario: `one server, side by side: notifications/add at ${RATE / 2}/s by a key without webhooks (mean latency, median of 3 rounds)`,
      figure: noEventMean,
    };
    rows.push({
      ...noEventRow,
      rps: median(pairs.map((p) => p.without.rps)),
      p50: median(pairs.map((p) => p.without.p50)),
      p99: median(pairs.map((p) => p.without.p99)),
      unit: 'ms',
    });
    rows.push({
      scenario: `one server, side by side: notifications/add at ${RATE / 2}/s by a key whose events go to ${ENDPOINTS} endpoints (mean latency, median of 3 rounds)`,
      rps: median(pairs.map((p) => p.withEvents.rps)),
      p50: median(pairs.map((p) => p.withEvents.p50)),
      p99: median(pairs.map((p) => p.withEvents.p99)),
      figure: eventMean,
      unit: 'ms',
      baseline: noEventRow,
      goal: { kind: 'ratio<=', value: 1.05 },
      vs: `rounds: ${pairs.map((p) => `${p.withEvents.mean.toFixed(2)} vs ${p.without.mean.toFixed(2)}`).join(', ')} ms`,
    });

    const without = await load(plain.url, '/v2/notifications/add', body, plain.headers);
    const withoutRow = { scenario: 'notifications/add saturated, no webhook configured', figure: without.rps };
    rows.push({ ...withoutRow, ...without });
    // drain what the calm runs queued, then count the saturated run's deliveries from here
    await drained(receiver);
    const started = Date.now();
    const before = await receiver.count();
    const withEvents = await load(hooked.url, '/v2/notifications/add', body, hooked.headers);
    rows.push({
      scenario: `notifications/add saturated, events for ${ENDPOINTS} endpoints (deliveries share the 2 cores)`,
      ...withEvents,
      baseline: withoutRow,
    });

    await drained(receiver);
    const delivered = (await receiver.count()) - before;
    const seconds = ((await receiver.last()) - started) / 1000;
    const events = Math.round(delivered / ENDPOINTS);
    rows.push({
      scenario: `deliveries sent (events × ${ENDPOINTS} endpoints) until drained`,
      rps: delivered / seconds,
      p50: 0,
      p99: 0,
      vs: `${events} events, ${(delivered / ENDPOINTS / seconds).toFixed(0)} events/s fanned out`,
    });
  } finally {
    await plain.stop();
    await hooked.stop();
    await receiver.close();
  }
  return rows;
}
