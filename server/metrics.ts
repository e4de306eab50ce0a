// In-process metrics: request counters and latency histograms with fixed buckets, fed from the request monitor's
// record path (server/admin/monitor.ts), which sees every API call. Two readers: the admin UI's live dashboard
// (per-second series of the last minutes, percentiles) and the Prometheus text format (GET /metrics). Gauges
// (connections, rooms, queue depth, database size) are read when asked, from functions registered once.

/** Upper bounds of the latency buckets, in milliseconds (the last bucket, +Inf, is implicit). */
export const LATENCY_BUCKETS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;
/** Seconds of per-second history the dashboard can show. */
export const SERIES_SECONDS = 300;

export interface RequestSample {
  /** The operation path (a fixed set: the registry's), or `other` for anything else. */
  path: string;
  status: number;
  durationMs: number;
  /** Epoch milliseconds when the answer was sent. */
  at: number;
}

export interface GaugeReading {
  name: string;
  help: string;
  value: number;
  /** Prometheus labels of this reading (one gauge can give several readings). */
  labels?: Record<string, string>;
  /** `counter` for a total that only grows since the process started (Prometheus takes its rate); a gauge otherwise. */
  kind?: 'counter';
}

/** One second of the dashboard's series. */
export interface SecondBucket {
  /** Epoch second. */
  t: number;
  requests: number;
  errors4xx: number;
  errors5xx: number;
  /** Counts per latency bucket (LATENCY_BUCKETS_MS, then +Inf). */
  latency: number[];
}

const bucketOf = (ms: number) => {
  for (let i = 0; i < LATENCY_BUCKETS_MS.length; i++) if (ms <= (LATENCY_BUCKETS_MS[i] as number)) return i;
  return LATENCY_BUCKETS_MS.length;
};

/**
 * The value under which `q` of the samples fall, read from bucket counts: linear within the bucket, as
 * Prometheus's histogram_quantile does. Null without samples.
 */
export function quantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] as number;
    if (seen + n >= rank && n > 0) {
      const lower = i === 0 ? 0 : (LATENCY_BUCKETS_MS[i - 1] as number);
      // the open bucket has no upper bound: its lower bound is the best statement
      if (i >= LATENCY_BUCKETS_MS.length) return lower;
      const upper = LATENCY_BUCKETS_MS[i] as number;
      return lower + (upper - lower) * ((rank - seen) / n);
    }
    seen += n;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1] as number;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Record<string, string>) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

export function createMetrics(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const started = now();
  /** Totals since start, per path and status: the Prometheus counters. */
  const totals = new Map<string, { path: string; status: number; count: number }>();
  /** Latency histogram since start, per path: cumulative counts are made when rendered. */
  const histograms = new Map<string, { counts: number[]; sum: number; count: number }>();
  /** The per-second ring of the last SERIES_SECONDS seconds. */
  const ring: SecondBucket[] = [];
  const gauges: Array<() => GaugeReading[]> = [];

  const secondOf = (at: number) => Math.floor(at / 1000);
  function bucketFor(second: number): SecondBucket {
    const last = ring[ring.length - 1];
    if (last && last.t === second) return last;
    // out-of-order samples (a slow call answered after a fast one) land in their own second when still kept
    if (last && second < last.t) {
      for (let i = ring.length - 1; i >= 0; i--) if ((ring[i] as SecondBucket).t === second) return ring[i] as SecondBucket;
    }
    const bucket: SecondBucket = { t: second, requests: 0, errors4xx: 0, errors5xx: 0, latency: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0) };
    if (!last || second > last.t) ring.push(bucket);
    while (ring.length > 0 && (ring[0] as SecondBucket).t <= second - SERIES_SECONDS) ring.shift();
    return bucket;
  }

  return {
    /** Counts one answered call (O(1) apart from the ring's trimming). */
    record(sample: RequestSample) {
      const id = `${sample.path} ${sample.status}`;
      const total = totals.get(id);
      if (total) total.count++;
      else totals.set(id, { path: sample.path, status: sample.status, count: 1 });
      const b = bucketOf(sample.durationMs);
      let histogram = histograms.get(sample.path);
      if (!histogram) histograms.set(sample.path, (histogram = { counts: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0), sum: 0, count: 0 }));
      histogram.counts[b] = (histogram.counts[b] as number) + 1;
      histogram.sum += sample.durationMs;
      histogram.count++;
      const second = bucketFor(secondOf(sample.at));
      second.requests++;
      if (sample.status >= 500) second.errors5xx++;
      else if (sample.status >= 400) second.errors4xx++;
      second.latency[b] = (second.latency[b] as number) + 1;
    },

    /** Registers a gauge read at each scrape or dashboard refresh. */
    gauge(read: () => GaugeReading[]) {
      gauges.push(read);
    },

    /** The gauges' current readings (a gauge that throws is left out: a scrape never fails for one). */
    readings(): GaugeReading[] {
      return gauges.flatMap((read) => {
        try {
          return read();
        } catch {
          return [];
        }
      });
    },

    /**
     * The dashboard's view: the last `seconds` seconds one per second (empty seconds included), the answers by
     * status since start, and p50/p99 latency over the last minute.
     */
    snapshot(seconds = 60) {
      const span = Math.max(1, Math.min(SERIES_SECONDS, Math.floor(seconds)));
      const current = secondOf(now());
      const kept = new Map(ring.map((b) => [b.t, b]));
      const series: SecondBucket[] = [];
      for (let t = current - span + 1; t <= current; t++)
        series.push(kept.get(t) ?? { t, requests: 0, errors4xx: 0, errors5xx: 0, latency: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0) });
      const lastMinute = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
      let requests = 0;
      for (const b of ring) {
        if (b.t <= current - 60) continue;
        requests += b.requests;
        for (const [i, n] of b.latency.entries()) lastMinute[i] = (lastMinute[i] as number) + n;
      }
      const byStatus = new Map<number, number>();
      for (const { status, count } of totals.values()) byStatus.set(status, (byStatus.get(status) ?? 0) + count);
      return {
        at: now(),
        uptimeSeconds: Math.round((now() - started) / 1000),
        series: series.map((b) => ({
          t: b.t,
          requests: b.requests,
          errors4xx: b.errors4xx,
          errors5xx: b.errors5xx,
          p50: quantile(b.latency, 0.5),
          p99: quantile(b.latency, 0.99),
        })),
        lastMinute: { requests, requestsPerSecond: requests / 60, p50: quantile(lastMinute, 0.5), p99: quantile(lastMinute, 0.99) },
        byStatus: [...byStatus].sort(([a], [b]) => a - b).map(([status, count]) => ({ status, count })),
        gauges: this.readings(),
      };
    },

    /** Everything in the Prometheus text exposition format (version 0.0.4). */
    prometheus(): string {
      const lines: string[] = [];
      lines.push('# HELP hearth_requests_total API calls answered, by operation path and HTTP status.', '# TYPE hearth_requests_total counter');
      for (const { path, status, count } of [...totals.values()].sort((a, b) => a.path.localeCompare(b.path) || a.status - b.status)) {
        lines.push(`hearth_requests_total${labelText({ path, status: String(status) })} ${count}`);
      }
      lines.push('# HELP hearth_request_duration_ms Time to answer an API call, in milliseconds.', '# TYPE hearth_request_duration_ms histogram');
      for (const [path, h] of [...histograms].sort(([a], [b]) => a.localeCompare(b))) {
        let cumulative = 0;
        LATENCY_BUCKETS_MS.forEach((le, i) => {
          cumulative += h.counts[i] as number;
          lines.push(`hearth_request_duration_ms_bucket${labelText({ path, le: String(le) })} ${cumulative}`);
        });
        lines.push(`hearth_request_duration_ms_bucket${labelText({ path, le: '+Inf' })} ${h.count}`);
        lines.push(`hearth_request_duration_ms_sum${labelText({ path })} ${h.sum}`);
        lines.push(`hearth_request_duration_ms_count${labelText({ path })} ${h.count}`);
      }
      const byName = new Map<string, GaugeReading[]>();
      for (const reading of this.readings()) byName.set(reading.name, [...(byName.get(reading.name) ?? []), reading]);
      for (const [name, readings] of byName) {
        lines.push(`# HELP ${name} ${(readings[0] as GaugeReading).help}`, `# TYPE ${name} ${(readings[0] as GaugeReading).kind ?? 'gauge'}`);
        for (const r of readings) lines.push(`${name}${labelText(r.labels ?? {})} ${Number.isFinite(r.value) ? r.value : 0}`);
      }
      lines.push(
        '# HELP hearth_uptime_seconds Seconds since this process started serving.',
        '# TYPE hearth_uptime_seconds gauge',
        `hearth_uptime_seconds ${Math.round((now() - started) / 1000)}`,
      );
      return `${lines.join('\n')}\n`;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
