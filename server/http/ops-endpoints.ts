// What operators and load balancers ask of a running server, on its own port and outside the API: whether it is
// alive (GET /healthz), whether it can serve (GET /readyz: the database answers and carries this build's
// migrations, and a cluster instance's Redis answers), and its figures in the Prometheus text format (GET /metrics:
// server/metrics.ts's counters and latency histograms per operation and status, and the gauges registered here).
// None needs credentials: they name no tenant's data (operation paths, counts, sizes), as a Prometheus exporter's
// do; the host check applies as to every request. The admin dashboard reads the same gauges.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { H3 } from 'h3';
import type { ClusterBus } from '../cluster/bus.ts';
import type { AppContext } from '../context.ts';

/** The gauges' sources that are read asynchronously; `refresh` reads them again before a scrape or a snapshot. */
export interface Gauges {
  refresh(): Promise<void>;
}

/** The database files' size on disk (SQLite files and their write-ahead logs). */
function databaseBytes(dataDir: string): number {
  let total = 0;
  for (const name of readdirSync(dataDir)) {
    if (!/\.db(-wal|-shm)?$/.test(name)) continue;
    try {
      total += statSync(join(dataDir, name)).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** The Yjs updates stored, sent to clients and heard from other instances (crdt/store.ts `totals`). */
function crdtTotals(app: AppContext) {
  const totals = app.crdt.totals();
  return [
    {
      name: 'hearth_yjs_updates_stored_total',
      help: 'Yjs updates stored (those of one event-loop turn merged into one).',
      value: totals.stored,
      kind: 'counter' as const,
    },
    {
      name: 'hearth_yjs_update_messages_sent_total',
      help: "Yjs update messages sent to this instance's websocket clients.",
      value: totals.sent,
      kind: 'counter' as const,
    },
    {
      name: 'hearth_yjs_updates_heard_total',
      help: 'Yjs updates stored by other instances of the cluster and applied here (over Redis).',
      value: totals.heard,
      kind: 'counter' as const,
    },
  ];
}

/**
 * Registers the gauges every scrape and dashboard refresh reads. The gauges are read synchronously; the outbox's
 * depth is in hearth.db, behind the asynchronous storage, so it is read by `refresh` (awaited before each scrape
 * and snapshot) and the gauge gives the last reading.
 */
export function registerGauges(app: AppContext): Gauges {
  // the last reading of each (refresh below): a gauge is read synchronously
  let outboxDepth = 0;
  const deliveryCounts = { pending: 0, failed: 0 };
  let size = 0;
  const deliveries = (status: 'pending' | 'failed') => deliveryCounts[status];
  app.monitor.metrics.gauge(() => [
    { name: 'hearth_websocket_connections', help: 'Open y-websocket connections.', value: app.crdt.totalConnections() },
    { name: 'hearth_rooms_loaded', help: 'Yjs documents held in memory.', value: app.crdt.liveCount() },
    ...crdtTotals(app),
    {
      name: 'hearth_webhook_queue_depth',
      help: 'Webhook events not yet fanned out, and deliveries waiting for an attempt.',
      value: outboxDepth + deliveries('pending'),
    },
    {
      name: 'hearth_webhook_failed_deliveries',
      help: `Webhook deliveries that failed every attempt (kept in ${app.storage.engine.kind === 'postgres' ? "PostgreSQL's webhook_deliveries table" : "the data dir's webhooks.db"}).`,
      value: deliveries('failed'),
    },
    {
      name: 'hearth_database_bytes',
      help: "Size of the database on disk: SQLite's files in the data dir with their write-ahead logs, or PostgreSQL's database.",
      value: app.storage.engine.kind === 'postgres' ? size : databaseBytes(app.config.dataDir),
    },
    ...(app.storage.engine.kind === 'postgres'
      ? [
          {
            name: 'hearth_db_transaction_retries_total',
            help: 'Units of work PostgreSQL refused (a serialization failure or a deadlock) and this instance ran again.',
            value: app.storage.engine.retries(),
            kind: 'counter' as const,
          },
        ]
      : []),
  ]);
  return {
    async refresh() {
      outboxDepth = await app.storage.inspection.outboxDepth();
      // each reading on its own: delivery state that cannot be read (webhooks.db being replaced) keeps the last one
      for (const status of ['pending', 'failed'] as const)
        deliveryCounts[status] = await app.storage.deliveries.withStatus(status).catch(() => deliveryCounts[status]);
      if (app.storage.engine.kind === 'postgres') size = await app.storage.databaseBytes();
    },
  };
}

/** The Prometheus text exposition format's media type (version 0.0.4). */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * How long GET /readyz waits for Redis's answer: ioredis queues commands while it reconnects, and a load balancer's
 * probe must get an answer within its own timeout.
 */
const REDIS_CHECK_MS = 2_000;

/** 'ok' when Redis answers a PING within REDIS_CHECK_MS, else what went wrong; never rejects. */
async function redisCheck(cluster: Pick<ClusterBus, 'ping'>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${REDIS_CHECK_MS} ms`)), REDIS_CHECK_MS);
  });
  try {
    await Promise.race([cluster.ping(), timeout]);
    return 'ok';
  } catch (error) {
    return `unreachable: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
}

export function registerOpsEndpoints(h3: H3, app: AppContext, gauges: Gauges) {
  h3.get('/healthz', () => ({ status: 'ok' }));

  h3.get('/readyz', async (event) => {
    let checks: { database: 'ok' | string; migrations: 'ok' | string; redis?: 'ok' | string; cluster?: 'ok' | string };
    // a cluster instance's Redis, asked beside the database: an instance that cannot reach it would serve rooms
    // whose updates never reach the other instances (a lone server has none: no field)
    const redis = app.cluster ? redisCheck(app.cluster) : undefined;
    // and that this Redis is the bus of the database's cluster (cluster/identity.ts): another one splits the cluster
    const bus = app.clusterCheck?.current();
    try {
      const schema = await app.storage.readiness();
      checks = {
        database: 'ok',
        migrations: schema.pending === 0 && schema.unknown === 0 ? 'ok' : `${schema.pending} pending, ${schema.unknown} unknown to this build`,
      };
    } catch (error) {
      checks = { database: `unreachable: ${error instanceof Error ? error.message : String(error)}`, migrations: 'unknown' };
    }
    if (redis) checks.redis = await redis;
    if (bus) checks.cluster = checks.redis === 'ok' ? await bus : 'unknown';
    const ready =
      checks.database === 'ok' &&
      checks.migrations === 'ok' &&
      (checks.redis === undefined || checks.redis === 'ok') &&
      (checks.cluster === undefined || checks.cluster === 'ok');
    event.res.status = ready ? 200 : 503;
    return { status: ready ? 'ready' : 'not ready', checks };
  });

  h3.get('/metrics', async () => {
    try {
      await gauges.refresh();
    } catch {
      // the database's figures keep their last reading; the scrape still answers (readyz says what is wrong)
    }
    return new Response(app.monitor.metrics.prometheus(), { headers: { 'content-type': PROMETHEUS_TEXT } });
  });
}
