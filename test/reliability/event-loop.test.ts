// No request's work holds the event loop (issue 42): while each hostile input of the issue runs, the server's
// event-loop delay (perf_hooks.monitorEventLoopDelay, in the server's own process: the server runs in-process
// here) stays under 100 ms at p99, and another client's pings are answered all along. Each input is built before
// the measurement starts, so that the test's own work is not counted against the server.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';

const P99_LIMIT_MS = 100;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'loop-org', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => t.close());

/** A POST of bytes made beforehand, answered with its status and error message. */
function post(path: string, body: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; message: string | undefined }>((resolve, reject) => {
    const req = request(
      t.url + path,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { message: string } };
          resolve({ status: res.statusCode ?? 0, message: answer.error?.message });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `work` while pinging from another client; the event loop's delay meanwhile, and the pings answered. */
async function measured(work: () => Promise<void>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let running = true;
  let answered = 0;
  const pinger = (async () => {
    while (running) {
      const ping = await t.callPublic('/v2/ping', {});
      expect(ping.status).toBe(200);
      answered++;
    }
  })();
  const started = performance.now();
  await work();
  const elapsedMs = performance.now() - started;
  running = false;
  await pinger;
  histogram.disable();
  const figures = { p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6, elapsedMs, pingsAnswered: answered };
  console.log(JSON.stringify(figures));
  return figures;
}

const keyHeaders = () => ({ 'x-svc-api-key': t.credentials.apiKey, 'x-svc-auth-token': t.credentials.authToken });

describe('the event loop under hostile inputs (issue 42)', () => {
  it('a comment whose HTML holds 200,000 `<` (tag stripping was quadratic: 38 s)', async () => {
    const body = Buffer.from(
      JSON.stringify({
        data: {
          organizationId: 'loop-org',
          documentId: 'doc',
          commentAnnotations: [{ annotationId: 'hostile', commentData: [{ commentHtml: '<'.repeat(200_000), from: { userId: 'mallory' } }] }],
        },
      }),
    );
    const figures = await measured(async () => {
      const answers = await Promise.all(Array.from({ length: 3 }, () => post('/v2/commentannotations/add', body, keyHeaders())));
      for (const answer of answers) expect(answer.status).toBe(200);
    });
    expect(figures.p99Ms).toBeLessThan(P99_LIMIT_MS);
    expect(figures.pingsAnswered).toBeGreaterThan(0);
  });

  it('8 MB of small JSON values with no credentials (parsed before anyone was identified: 1–3 s)', async () => {
    const body = Buffer.from(`{"data":{"organizationId":"loop-org","pad":[${'{},'.repeat(2_800_000)}{}]}}`);
    const figures = await measured(async () => {
      const answers = await Promise.all(Array.from({ length: 3 }, () => post('/v2/crdt/get', body, {})));
      for (const answer of answers) expect(answer).toEqual({ status: 400, message: 'API key not found in headers (x-svc-api-key).' });
    });
    expect(figures.p99Ms).toBeLessThan(P99_LIMIT_MS);
    expect(figures.pingsAnswered).toBeGreaterThan(0);
  });

  it('the same 8 MB with a key’s credentials: refused before JSON.parse, which took 0.7 s', async () => {
    const body = Buffer.from(`{"data":{"organizationId":"loop-org","pad":[${'{},'.repeat(2_800_000)}{}]}}`);
    const figures = await measured(async () => {
      const answers = await Promise.all(Array.from({ length: 3 }, () => post('/v2/crdt/get', body, keyHeaders())));
      for (const answer of answers) expect(answer).toEqual({ status: 400, message: 'Bad Request: the body holds more than 250,000 JSON values.' });
    });
    expect(figures.p99Ms).toBeLessThan(P99_LIMIT_MS);
    expect(figures.pingsAnswered).toBeGreaterThan(0);
  });

  it('an admin import of 50 MB into another key (read, parsed and written on the event loop: 3.4–7.5 s)', async () => {
    const cookie = await adminCookie(t);
    const admin = (path: string, body: unknown) =>
      fetch(`${t.url}/admin/api${path}`, { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body: JSON.stringify(body) });
    expect((await admin('/data/reset', { apiKey: t.credentials.apiKey, confirm: 'reset' })).status).toBe(200);
    const exported = await fetch(`${t.url}/admin/api/data/export?apiKey=${t.credentials.apiKey}`, { headers: { cookie } });
    const archive = (await exported.json()) as { tables: Record<string, Array<Record<string, unknown>>> };
    // the seeded activities, again and again under new ids, to 50 MB
    const activities = archive.tables.activities ?? [];
    expect(activities.length).toBeGreaterThan(0);
    const rows: Array<Record<string, unknown>> = [];
    for (let size = 0, i = 0; size < 50e6; i++) {
      const row = { ...(activities[i % activities.length] as Record<string, unknown>), id: `bulk-${i}` };
      size += JSON.stringify(row).length;
      rows.push(row);
    }
    archive.tables = { ...archive.tables, activities: rows };
    const ownerEmail = dataOf<{ owner: { email: string } }>(await t.callW('/v2/workspace/get', {})).owner.email;
    const second = dataOf<{ apiKey: string }>(await t.callW('/v2/workspace/apikey/create', { ownerEmail, type: 'testing', createAuthToken: true })).apiKey;
    const body = JSON.stringify({ apiKey: second, archive });
    let imported: Record<string, number> = {};
    const figures = await measured(async () => {
      const answer = await fetch(`${t.url}/admin/api/data/import`, { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body });
      expect(answer.status).toBe(200);
      imported = ((await answer.json()) as { imported: Record<string, number> }).imported;
    });
    expect(imported.activities).toBe(rows.length);
    expect(figures.p99Ms).toBeLessThan(P99_LIMIT_MS);
    expect(figures.pingsAnswered).toBeGreaterThan(0);
  });
});
