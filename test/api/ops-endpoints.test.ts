// GET /healthz, /readyz and /metrics: what a load balancer and a Prometheus scrape ask of a running server.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('the operations endpoints', () => {
  it('GET /healthz answers while the process serves', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers ready when the database answers and carries this build’s migrations', async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('GET /readyz answers 503, naming the check, when the database cannot be read', async () => {
    const broken = await startTestServer();
    try {
      if (broken.server.app.storage.engine.kind === 'postgres') {
        // PostgreSQL: the server's database takes no new connection, and the ones the server holds are ended
        // (from the maintenance database: a database cannot refuse connections from a session of its own)
        const url = new URL(broken.server.app.config.databaseUrl ?? '');
        const name = decodeURIComponent(url.pathname.slice(1));
        url.pathname = '/postgres';
        const admin = new pg.Client({ connectionString: url.toString() });
        await admin.connect();
        try {
          await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
          const ended = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
          expect(ended.rowCount).toBeGreaterThan(0);
        } finally {
          await admin.end();
        }
      } else {
        sqliteEngineOf(broken.server.app.storage).main.sqlite.close();
      }
      const res = await fetch(`${broken.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; checks: { database: string } };
      expect(body.status).toBe('not ready');
      expect(body.checks.database).toMatch(/^unreachable: /);
      // alive all the same: the process still answers
      expect((await fetch(`${broken.url}/healthz`)).status).toBe(200);
    } finally {
      await broken.close();
    }
  });

  it('GET /metrics answers the Prometheus text format: calls by operation and status, latency histograms, gauges', async () => {
    await t.callPublic('/v2/ping', {});
    await t.callPublic('/v2/ping', {});
    await t.callK('/v2/organizations/get', { organizationIds: ['nobody'] });
    await t.callK('/v2/organizations/documents/get', {});
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));

    const requests = families.get('hearth_requests_total');
    expect(requests?.type).toBe('COUNTER');
    const count = (path: string, status: string) => Number(requests?.metrics.find((m) => m.labels?.path === path && m.labels?.status === status)?.value ?? 0);
    expect(count('/v2/ping', '200')).toBeGreaterThanOrEqual(2);
    expect(count('/v2/organizations/get', '200')).toBeGreaterThanOrEqual(1);
    // a refused call counts under its status (organizationId missing: 400)
    expect(count('/v2/organizations/documents/get', '400')).toBeGreaterThanOrEqual(1);

    // The parser checks every line of the histogram, but it folds a histogram's label sets into one (prom2json's
    // shape for an unlabelled histogram): the per-operation figures are read from their lines.
    expect(families.get('hearth_request_duration_ms')?.type).toBe('HISTOGRAM');
    const line = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);
    expect(line('hearth_request_duration_ms_count\\{path="/v2/ping"\\}')).toBeGreaterThanOrEqual(2);
    const buckets = [...text.matchAll(/^hearth_request_duration_ms_bucket\{path="\/v2\/ping",le="([^"]+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
    expect(buckets.length).toBeGreaterThan(5);
    // cumulative, the last (+Inf) holding every call
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]!);
    expect(buckets.at(-1)).toBe(line('hearth_request_duration_ms_count\\{path="/v2/ping"\\}'));

    for (const gauge of [
      'hearth_websocket_connections',
      'hearth_rooms_loaded',
      'hearth_webhook_queue_depth',
      'hearth_database_bytes',
      'hearth_uptime_seconds',
    ]) {
      expect(families.get(gauge)?.type, gauge).toBe('GAUGE');
    }
    expect(Number(families.get('hearth_database_bytes')?.metrics[0]?.value)).toBeGreaterThan(0);
    // the units PostgreSQL refused and ran again: a counter on PostgreSQL; SQLite runs one at a time and has none
    const retries = families.get('hearth_db_transaction_retries_total');
    if (t.server.app.storage.engine.kind === 'postgres') {
      expect(retries?.type).toBe('COUNTER');
      expect(Number(retries?.metrics[0]?.value)).toBeGreaterThanOrEqual(0);
    } else expect(retries).toBeUndefined();
    // where failed deliveries are kept, per engine (issue 45)
    expect(families.get('hearth_webhook_failed_deliveries')?.help).toBe(
      t.server.app.storage.engine.kind === 'postgres'
        ? "Webhook deliveries that failed every attempt (kept in PostgreSQL's webhook_deliveries table)."
        : "Webhook deliveries that failed every attempt (kept in the data dir's webhooks.db).",
    );
  });
});
