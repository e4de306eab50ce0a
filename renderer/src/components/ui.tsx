// Small shared pieces: breadcrumbs, copy buttons, status lines, tabs, definition lists, sparklines.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ago, time } from '../lib/format.ts';
import { setQuery } from '../lib/router.ts';

export interface Crumb {
  label: string;
  href?: string;
}

export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      <ol>
        {items.map((c, i) => (
          <li key={i}>
            {c.href && i < items.length - 1 ? (
              <a href={c.href}>{c.label}</a>
            ) : (
              <span aria-current={i === items.length - 1 ? 'page' : undefined}>{c.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** The page's title and breadcrumbs; sets document.title too. */
export function PageHead({ title, crumbs, children }: { title: string; crumbs?: Crumb[]; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Hearth`;
  }, [title]);
  return (
    <header class="page-head">
      {crumbs && <Breadcrumbs items={crumbs} />}
      <div class="page-title">
        <h1 id="page-title">{title}</h1>
        {children && <div class="page-actions">{children}</div>}
      </div>
    </header>
  );
}

export function CopyButton({ value, label = 'Copy', name }: { value: string; label?: string; name?: string }) {
  const [said, setSaid] = useState(label);
  return (
    <button
      type="button"
      class="small"
      data-copy={name}
      aria-label={name ? `${label} ${name}` : label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setSaid('Copied');
        } catch {
          setSaid('Copy failed');
        }
        setTimeout(() => setSaid(label), 1500);
      }}
    >
      {said}
    </button>
  );
}

export type Tone = 'ok' | 'bad' | 'info';
export interface Said {
  text: string;
  tone: Tone;
}

/** A live status line (role=status), for what a click did. */
export function Status({ said, id }: { said: Said | null; id?: string }) {
  return (
    <p id={id} class={`status ${said?.tone ?? ''}`} role="status">
      {said?.text ?? ''}
    </p>
  );
}

export function ErrorBox({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export const Loading = () => (
  <p class="muted" aria-live="polite">
    Loading…
  </p>
);

/** Tabs whose choice is in the URL (`?tab=`), so a tab can be linked to and survives a reload. */
export function Tabs({ tabs, current, label }: { tabs: Array<{ id: string; label: string; count?: number }>; current: string; label: string }) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKey = (event: KeyboardEvent, i: number) => {
    const next = event.key === 'ArrowRight' ? i + 1 : event.key === 'ArrowLeft' ? i - 1 : null;
    if (next === null) return;
    const j = (next + tabs.length) % tabs.length;
    setQuery('tab', (tabs[j] as { id: string }).id, true);
    refs.current[j]?.focus();
    event.preventDefault();
  };
  return (
    <div class="tabs" role="tablist" aria-label={label}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={t.id === current}
          tabIndex={t.id === current ? 0 : -1}
          onClick={() => setQuery('tab', t.id, true)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {t.label}
          {t.count !== undefined && <span class="count">{t.count.toLocaleString('en-US')}</span>}
        </button>
      ))}
    </div>
  );
}

export function Facts({ items, id }: { items: Array<[string, ComponentChildren]>; id?: string }) {
  return (
    <dl class="facts" id={id}>
      {items.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
    </dl>
  );
}

/** A tiny inline chart of a series (SVG: a sparkline needs no charting library). */
export function Sparkline({ values, label, width = 160, height = 32 }: { values: number[]; label: string; width?: number; height?: number }) {
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`).join(' ');
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <figure class="sparkline">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${total} in all, at most ${max} a day`}>
        <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
      </svg>
      <figcaption>{label}</figcaption>
    </figure>
  );
}

export function Badge({ tone, children }: { tone?: 'ok' | 'bad' | 'warn' | 'muted'; children: ComponentChildren }) {
  return <span class={`badge ${tone ?? ''}`}>{children}</span>;
}

export function Section({ title, children, id, actions }: { title: string; children: ComponentChildren; id?: string; actions?: ComponentChildren }) {
  return (
    <section class="card" id={id} aria-labelledby={id ? `${id}-title` : undefined}>
      <div class="card-head">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A time as a short relative figure (`3 d ago`) with the full time on hover: for narrow columns. */
export function Since({ at }: { at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={time(at)}>
      {ago(at)}
    </time>
  );
}
