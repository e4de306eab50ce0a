// Time-series charts with uPlot (canvas, ~20 KB gzipped), loaded as a chunk of its own on the first chart.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';

export interface Series {
  label: string;
  values: Array<number | null>;
  /** CSS color; the theme's accent when absent. */
  color?: string;
}

let loading: Promise<typeof uPlot> | null = null;
const loadUPlot = () => (loading ??= import('uplot').then((module) => module.default));

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** A line chart of `series` over `times` (epoch seconds); redrawn in place as the data changes. */
export function Chart({ title, times, series, unit, id }: { title: string; times: number[]; series: Series[]; unit?: string; id?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join('|');

  useEffect(() => {
    let disposed = false;
    void loadUPlot().then((UPlot) => {
      if (disposed || !box.current) return;
      const text = cssVar('--text');
      const grid = cssVar('--border');
      const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
      plot.current = new UPlot(
        {
          width: Math.max(280, box.current.clientWidth),
          height: 180,
          series: [
            {},
            ...series.map((s) => ({
              label: s.label,
              stroke: s.color ?? cssVar('--accent'),
              width: 1.5,
              spanGaps: false,
              value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${v.toFixed(v < 10 ? 2 : 0)}${unit ? ` ${unit}` : ''}`),
            })),
          ],
          axes: [
            {
              ...axis,
              values: (_u: uPlot, splits: number[]) =>
                splits.map((t) => new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })),
            },
            { ...axis, size: 50 },
          ],
          scales: { x: { time: true } },
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
        },
        [times, ...series.map((s) => s.values)],
        box.current,
      );
    });
    const resize = () => plot.current && box.current && plot.current.setSize({ width: Math.max(280, box.current.clientWidth), height: 180 });
    window.addEventListener('resize', resize);
    return () => {
      disposed = true;
      window.removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = null;
    };
    // a new chart only when the set of series changes; data updates go through setData below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([times, ...series.map((s) => s.values)]);
  }, [times, series]);

  const latest = series.map((s) => `${s.label} ${s.values[s.values.length - 1] ?? '—'}`).join(', ');
  return (
    <figure class="card chart-card" id={id}>
      <figcaption>
        <h2>{title}</h2>
      </figcaption>
      <div class="chart" ref={box} role="img" aria-label={`${title}; latest: ${latest}`} />
    </figure>
  );
}
