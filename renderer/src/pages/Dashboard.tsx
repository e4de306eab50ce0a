// The live dashboard: requests per second, p50/p99 latency, errors by status, websocket connections, rooms
// loaded, webhook queue and failures, database size; refreshed every two seconds.
import { useState } from 'preact/hooks';
import type { DeliveryLogAnswer, MetricsAnswer, OverviewAnswer } from '../../../shared/admin.ts';
import { Chart } from '../components/Chart.tsx';
import { ErrorBox, Facts, PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { bytes, ms, num } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { useInterval, useLoad } from '../lib/use.ts';

const gauge = (m: MetricsAnswer | undefined, name: string) => m?.gauges.filter((g) => g.name === name).reduce((a, g) => a + g.value, 0);

function Tile({ id, label, value, href }: { id: string; label: string; value: string; href?: string }) {
  return (
    <div class="metric" id={`metric-${id}`}>
      <div class="value">{value}</div>
      <div class="label">{href ? <a href={href}>{label}</a> : label}</div>
    </div>
  );
}

export default function Dashboard() {
  const overview = useLoad<OverviewAnswer>(() => api.overview(), []);
  const [metrics, setMetrics] = useState<MetricsAnswer | undefined>();
  const [error, setError] = useState<string | null>(null);
  // the workspace's webhook deliveries by state: the same counts as the delivery log's
  const [deliveries, setDeliveries] = useState<DeliveryLogAnswer['counts'] | undefined>();
  const refresh = () =>
    Promise.all([
      api.metrics(120),
      api.deliveries({ limit: 1 }).then(
        (d) => setDeliveries(d.counts),
        () => undefined,
      ),
    ]).then(
      ([m]) => {
        setMetrics(m);
        setError(null);
      },
      (e: unknown) => setError(String(e)),
    );
  useLoad(refresh, []);
  useInterval(refresh, 2000);
  const [health, setHealth] = useState('checking…');
  useLoad(async () => {
    try {
      const res = await fetch('/v2/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
      const body = (await res.json()) as { result?: { message?: string } };
      setHealth(body.result?.message === 'pong' ? 'healthy' : 'unexpected answer');
    } catch (e) {
      setHealth(`unreachable: ${String(e)}`);
    }
  }, []);

  const o = overview.data;
  const series = metrics?.series ?? [];
  const times = series.map((b) => b.t);
  const errors = (metrics?.byStatus ?? []).filter((s) => s.status >= 400);
  return (
    <>
      <PageHead title="Dashboard" />
      <ErrorBox error={overview.error ?? error} />
      <div class="metrics" aria-live="off">
        <Tile id="rps" label="requests/s (last minute)" value={metrics ? metrics.lastMinute.requestsPerSecond.toFixed(2) : '—'} />
        <Tile id="p50" label="p50 latency" value={ms(metrics?.lastMinute.p50)} />
        <Tile id="p99" label="p99 latency" value={ms(metrics?.lastMinute.p99)} />
        <Tile id="errors" label="error answers since start" value={num(errors.reduce((a, s) => a + s.count, 0))} />
        <Tile id="connections" label="open websocket connections" value={num(gauge(metrics, 'hearth_websocket_connections') ?? 0)} />
        <Tile id="rooms" label="Yjs rooms loaded" value={num(gauge(metrics, 'hearth_rooms_loaded') ?? 0)} />
        <Tile id="queue" label="webhook deliveries waiting" value={num(gauge(metrics, 'hearth_webhook_queue_depth') ?? 0)} />
        <Tile id="failures" label="webhook deliveries failed (gave up)" value={deliveries ? num(deliveries.failed) : '—'} href={links.deliveries('failed')} />
        <Tile id="retrying" label="webhook deliveries retrying" value={deliveries ? num(deliveries.retrying) : '—'} href={links.deliveries('retrying')} />
        <Tile id="dbsize" label="database size" value={bytes(gauge(metrics, 'hearth_database_bytes') ?? 0)} />
      </div>
      <div class="charts">
        <Chart id="chart-requests" title="Requests per second" times={times} series={[{ label: 'requests', values: series.map((b) => b.requests) }]} />
        <Chart
          id="chart-latency"
          title="Latency"
          unit="ms"
          times={times}
          series={[
            { label: 'p50', values: series.map((b) => b.p50) },
            { label: 'p99', values: series.map((b) => b.p99), color: '#7c3aed' },
          ]}
        />
        <Chart
          id="chart-errors"
          title="Errors per second"
          times={times}
          series={[
            { label: '4xx', values: series.map((b) => b.errors4xx), color: '#d97706' },
            { label: '5xx', values: series.map((b) => b.errors5xx), color: '#dc2626' },
          ]}
        />
      </div>
      <div class="grid">
        <Section title="Server" id="server">
          <Facts
            id="server-facts"
            items={[
              ['Base URL', <span id="base-url">{location.origin}</span>],
              [
                'Health',
                <span id="health" class={health === 'healthy' ? 'ok' : 'bad'}>
                  {health}
                </span>,
              ],
              ['Version', o ? `v${o.version}` : '…'],
              ['Workspace', <code>{o?.workspaceId ?? '…'}</code>],
              ...(o?.dataDir ? ([['Data dir', <code id="data-dir">{o.dataDir}</code>]] as Array<[string, preact.ComponentChildren]>) : []),
              ['Up for', metrics ? `${Math.round(metrics.uptimeSeconds / 60)} min` : '…'],
            ]}
          />
        </Section>
        <Section title="Answers by status" id="by-status">
          <table>
            <caption class="visually-hidden">API answers by HTTP status since the server started</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Answers
                </th>
              </tr>
            </thead>
            <tbody>
              {(metrics?.byStatus ?? []).map((s) => (
                <tr key={s.status} data-status={s.status} class={s.status >= 500 ? 'bad' : ''}>
                  <td>{s.status}</td>
                  <td class="num">{num(s.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        <Section title="Contents" id="contents">
          <Facts id="counts" items={Object.entries(o?.counts ?? {}).map(([k, v]) => [k, <span id={`count-${k}`}>{num(v)}</span>])} />
        </Section>
      </div>
    </>
  );
}
