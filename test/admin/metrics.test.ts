// server/metrics.ts: the dashboard's per-second series and percentiles, and the Prometheus text format.
import { describe, expect, it } from 'vitest';
import { createMetrics, LATENCY_BUCKETS_MS, quantile } from '../../server/metrics.ts';

describe('metrics', () => {
  it('reads percentiles from fixed buckets, linear within a bucket', () => {
    const counts = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
    expect(quantile(counts, 0.5)).toBeNull();
    counts[3] = 100; // (5, 10] ms
    expect(quantile(counts, 0.5)).toBe(7.5);
    expect(quantile(counts, 0.99)).toBeCloseTo(9.95);
    counts[LATENCY_BUCKETS_MS.length] = 1000; // over the last bound
    expect(quantile(counts, 0.99)).toBe(10000);
  });

  it('keeps a per-second series with errors by class and the answers by status', () => {
    let clock = 1_000_000_000;
    const metrics = createMetrics({ now: () => clock });
    for (let i = 0; i < 10; i++) metrics.record({ path: '/v2/ping', status: 200, durationMs: 3, at: clock });
    metrics.record({ path: '/v2/agents/get', status: 404, durationMs: 30, at: clock });
    clock += 1000;
    metrics.record({ path: '/v2/agents/get', status: 500, durationMs: 700, at: clock });
    metrics.gauge(() => [{ name: 'hearth_rooms_loaded', help: 'Yjs documents in memory.', value: 4 }]);
    metrics.gauge(() => {
      throw new Error('unreadable');
    });
    const s = metrics.snapshot(5);
    expect(s.series).toHaveLength(5);
    expect(s.series.slice(-2).map((b) => [b.requests, b.errors4xx, b.errors5xx])).toEqual([
      [11, 1, 0],
      [1, 0, 1],
    ]);
    expect(s.lastMinute.requests).toBe(12);
    expect(s.lastMinute.requestsPerSecond).toBeCloseTo(12 / 60);
    expect(s.byStatus).toEqual([
      { status: 200, count: 10 },
      { status: 404, count: 1 },
      { status: 500, count: 1 },
    ]);
    expect(s.gauges).toEqual([{ name: 'hearth_rooms_loaded', help: 'Yjs documents in memory.', value: 4 }]);
    // seconds older than the series' span leave the ring
    clock += 400_000;
    expect(metrics.snapshot(60).lastMinute.requests).toBe(0);
  });

  it('renders the Prometheus text format with cumulative buckets and escaped labels', () => {
    const metrics = createMetrics({ now: () => 5_000 });
    metrics.record({ path: '/v2/ping', status: 200, durationMs: 0.4, at: 5_000 });
    metrics.record({ path: '/v2/ping', status: 200, durationMs: 7, at: 5_000 });
    metrics.gauge(() => [{ name: 'hearth_webhook_queue_depth', help: 'Deliveries waiting.', value: 3, labels: { kind: 'a"b' } }]);
    const text = metrics.prometheus();
    expect(text).toContain('# TYPE hearth_requests_total counter\nhearth_requests_total{path="/v2/ping",status="200"} 2\n');
    expect(text).toContain('hearth_request_duration_ms_bucket{path="/v2/ping",le="1"} 1\n');
    expect(text).toContain('hearth_request_duration_ms_bucket{path="/v2/ping",le="5"} 1\n');
    expect(text).toContain('hearth_request_duration_ms_bucket{path="/v2/ping",le="10"} 2\n');
    expect(text).toContain('hearth_request_duration_ms_bucket{path="/v2/ping",le="+Inf"} 2\n');
    expect(text).toContain('hearth_request_duration_ms_count{path="/v2/ping"} 2\n');
    expect(text).toContain('# TYPE hearth_webhook_queue_depth gauge\nhearth_webhook_queue_depth{kind="a\\"b"} 3\n');
    expect(text.endsWith('\n')).toBe(true);
  });
});
