// The request monitor: this workspace's API calls live (server-sent events), filters (status, path, key,
// duration), search, sorting by time or by duration, a call's bodies (secrets redacted), copy as curl, and open in
// the explorer. The monitor keeps each workspace's last 500 calls in memory (server/admin/monitor.ts): they are all
// here, so filters and sorts run on them in the page. In a cluster they include the other instances' calls, whose
// bodies stay on the instance that answered them.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { CallDetail, CallSummary } from '../../../shared/admin.ts';
import { CopyButton, ErrorBox, PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { asCurl } from '../lib/curl.ts';
import { clock, ms, pretty } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { navigate, setQueries, setQuery, useLocation, type Params } from '../lib/router.ts';
import { useSession } from '../lib/keys.ts';

const KEEP = 500;

export default function Requests({ params }: { params: Params }) {
  const { query } = useLocation();
  const session = useSession();
  const [calls, setCalls] = useState<CallSummary[]>([]);
  const [live, setLive] = useState('connecting…');
  const [error, setError] = useState<string | null>(null);
  const status = query.get('status') ?? '';
  const path = query.get('path') ?? '';
  const caller = query.get('caller') ?? '';
  const slower = Number(query.get('slower') ?? '') || 0;
  const search = query.get('search') ?? '';
  const kind = query.get('kind') ?? '';
  const sort = query.get('sort') === 'duration' ? 'duration' : 'time';
  const dir = query.get('dir') === 'asc' ? 'asc' : 'desc';
  const openId = params.id ? Number(params.id) : null;

  useEffect(() => {
    let source: EventSource | null = null;
    api.requests().then(
      (answer) => setCalls(answer.items.slice(-KEEP)),
      (e: unknown) => setError(String(e)),
    );
    source = new EventSource('/admin/api/requests/stream');
    source.onopen = () => setLive('live');
    source.onerror = () => setLive('reconnecting…');
    source.onmessage = (message) => {
      const call = JSON.parse(message.data as string) as CallSummary;
      setCalls((list) => [...list.slice(-(KEEP - 1)), call]);
    };
    return () => source?.close();
  }, []);

  const shown = useMemo(() => {
    const words = search.toLowerCase();
    const kept = calls.filter(
      (c) =>
        (!status || String(c.status).startsWith(status)) &&
        (!kind || (kind === 'refused' ? c.status === 401 || c.status === 403 : kind === 'api' ? c.kind === undefined : c.kind === kind)) &&
        (!path || c.path.includes(path)) &&
        (!caller || c.caller === caller) &&
        c.durationMs >= slower &&
        (!words || `${c.path} ${c.status} ${c.caller ?? ''} ${c.requestId} ${c.note ?? ''}`.toLowerCase().includes(words)),
    );
    // calls arrive in time order (ids grow with it); by duration, ties keep the newest first
    const sign = dir === 'asc' ? 1 : -1;
    const ordered = sort === 'duration' ? kept.sort((a, b) => sign * (a.durationMs - b.durationMs) || b.id - a.id) : dir === 'asc' ? kept : kept.reverse();
    return ordered.slice(0, 200);
  }, [calls, status, path, caller, slower, search, sort, dir, kind]);
  /** A header's sort button: the same column reverses; the other starts with the newest or the slowest. */
  const sortHeader = (column: 'time' | 'duration', label: string) => {
    const current = sort === column;
    return (
      <th scope="col" class={column === 'duration' ? 'num' : undefined} aria-sort={current ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}>
        <button
          type="button"
          class="sort"
          data-sort={column}
          aria-label={current ? `${label}, sorted ${dir === 'asc' ? 'ascending' : 'descending'}; click to reverse` : `${label}: sort by it`}
          onClick={() => setQueries({ sort: column === 'time' ? null : column, dir: current && dir === 'desc' ? 'asc' : null })}
        >
          {label}{' '}
          <span aria-hidden="true" class={current ? undefined : 'muted'}>
            {current ? (dir === 'asc' ? '▲' : '▼') : '↕'}
          </span>
        </button>
      </th>
    );
  };
  const callers = [...new Set(calls.map((c) => c.caller).filter((c): c is string => !!c))];

  return (
    <>
      <PageHead title="Requests">
        <span id="live" class="muted" role="status">
          {live}
        </span>
      </PageHead>
      <ErrorBox error={error} />
      <div class="split">
        <div>
          <div class="filters" role="search">
            <label>
              <span>Status</span>
              <select id="filter-status" value={status} onChange={(e) => setQuery('status', (e.target as HTMLSelectElement).value)}>
                <option value="">any</option>
                <option value="2">2xx</option>
                <option value="4">4xx</option>
                <option value="5">5xx</option>
              </select>
            </label>
            <label>
              <span>Kind</span>
              <select id="filter-kind" value={kind} onChange={(e) => setQuery('kind', (e.target as HTMLSelectElement).value)}>
                <option value="">all</option>
                <option value="api">API calls</option>
                <option value="ui">admin UI calls</option>
                <option value="refused">refused (401/403)</option>
                <option value="ws">websocket events</option>
              </select>
            </label>
            <label>
              <span>Path</span>
              <input id="filter-path" value={path} placeholder="/v2/notifications" onInput={(e) => setQuery('path', (e.target as HTMLInputElement).value)} />
            </label>
            <label>
              <span>Key or workspace</span>
              <select id="filter-caller" value={caller} onChange={(e) => setQuery('caller', (e.target as HTMLSelectElement).value)}>
                <option value="">any</option>
                {callers.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
            <label>
              <span>Slower than (ms)</span>
              <input id="filter-slower" type="number" min="0" value={slower || ''} onInput={(e) => setQuery('slower', (e.target as HTMLInputElement).value)} />
            </label>
            <label>
              <span>Search</span>
              <input
                id="filter-search"
                type="search"
                value={search}
                placeholder="request id, path…"
                onInput={(e) => setQuery('search', (e.target as HTMLInputElement).value)}
              />
            </label>
          </div>
          <table id="request-list">
            <caption class="visually-hidden">{`API calls of this workspace, ${sort === 'duration' ? (dir === 'asc' ? 'fastest' : 'slowest') : dir === 'asc' ? 'oldest' : 'newest'} first`}</caption>
            <thead>
              <tr>
                {sortHeader('time', 'Time')}
                <th scope="col">Kind</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                {sortHeader('duration', 'ms')}
                <th scope="col">Key / workspace</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => (
                <tr key={c.id} data-id={c.id} class={`${c.status >= 500 ? 'bad' : c.status >= 400 ? 'warn' : ''} ${openId === c.id ? 'selected' : ''}`}>
                  <td>{clock(c.at)}</td>
                  <td class="kind">{kindLabel(c)}</td>
                  <td>
                    <a href={links.request(c.id) + location.search}>{c.path}</a>
                    {c.note ? <div class="muted note">{c.note}</div> : null}
                  </td>
                  <td>{c.status}</td>
                  <td class="num">{c.durationMs.toFixed(1)}</td>
                  <td class="id">{c.caller ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="sticky">{openId ? <CallView id={openId} workspaceId={session.workspaceId} /> : <p class="muted">Choose a call to see its bodies.</p>}</div>
      </div>
    </>
  );
}

/** The kind column: who made the entry. */
function kindLabel(c: CallSummary): string {
  if (c.kind === 'ws') return 'websocket';
  if (c.kind === 'ui') return 'admin UI';
  return c.status === 401 || c.status === 403 ? 'API, refused' : 'API';
}

/** A call's request headers as received, credentials masked. */
function HeaderList({ headers, id, caption }: { headers: Array<[string, string]> | undefined; id: string; caption: string }) {
  if (!headers) return <p class="muted">Headers are kept with the bodies.</p>;
  return (
    <table id={id} class="headers">
      <caption class="visually-hidden">{caption}</caption>
      <tbody>
        {headers.map(([name, value], i) => (
          <tr key={`${name}-${i}`}>
            <th scope="row">{name}</th>
            <td class="id">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CallView({ id, workspaceId }: { id: number; workspaceId: string }) {
  const [call, setCall] = useState<CallDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setCall(null);
    setError(null);
    api.request(id).then(setCall, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [id]);
  if (error) return <ErrorBox error={error} />;
  if (!call) return <p class="muted">Loading…</p>;
  if (call.kind === 'ws')
    return (
      <Section title={`WS ${call.path} → ${call.status}`} id="request-detail">
        <p id="request-note">{call.note}</p>
        <p class="muted">
          {clock(call.at)} · connection {call.requestId} · API key {call.caller}
        </p>
      </Section>
    );
  let data: unknown = {};
  try {
    data = (JSON.parse(call.request ?? '{}') as { data?: unknown }).data ?? {};
  } catch {
    data = {};
  }
  const auth = call.caller === workspaceId ? 'workspace' : call.caller ? 'apiKey' : 'public';
  const curl = asCurl({
    path: call.path,
    auth,
    data,
    ...(auth === 'apiKey' ? { apiKey: call.caller as string } : {}),
    ...(auth === 'workspace' ? { workspaceId } : {}),
  });
  return (
    <Section title={`${call.method} ${call.path} → ${call.status}`} id="request-detail">
      <p class="muted" id="request-note">
        {call.kind === 'ui' ? 'Called by the admin UI · ' : ''}
        {ms(call.durationMs)} · {call.requestId} ·{' '}
        {call.instance !== undefined
          ? `Answered by another instance of the cluster (${call.instance.slice(0, 8)}); its bodies stay there.`
          : call.request === undefined
            ? 'Bodies are kept only for calls made while a monitor is open.'
            : 'Secret fields are shown as [redacted].'}
      </p>
      <div class="row">
        <CopyButton value={curl} label="Copy as curl" name="curl" />
        <button
          type="button"
          class="small"
          id="open-in-explorer"
          onClick={() => navigate(links.explorer(call.path, auth === 'apiKey' ? (call.caller as string) : undefined, data))}
        >
          Open in the explorer
        </button>
      </div>
      <h3>Request headers</h3>
      <HeaderList headers={call.requestHeaders} id="request-headers" caption="Request headers" />
      <h3>Request</h3>
      <pre tabIndex={0} id="request-body">
        {pretty(call.request)}
      </pre>
      <h3>Response headers</h3>
      <HeaderList headers={call.responseHeaders} id="response-headers" caption="Response headers" />
      {call.responseHeaders ? <p class="muted">As Hearth wrote them; Node adds Date and Keep-Alive.</p> : null}
      <h3>Response</h3>
      <pre tabIndex={0} id="response-body">
        {pretty(call.response)}
      </pre>
    </Section>
  );
}
