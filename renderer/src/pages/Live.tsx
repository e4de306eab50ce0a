// Collaborative documents: the list, and one opened live beside it (read-only, over y-websocket with a ticket):
// the content as it is (rich text for XML), the tree of its shared types, the clients connected and their
// presence, and its history from the stored update log: the document at a chosen point, a diff against now,
// restore (applied as a new update, so connected clients converge on it), export as JSON or Yjs binary.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import type { CrdtItem, CrdtKey, HistoryEntry, StateAnswer } from '../../../shared/admin.ts';
import { WordDiffView } from '../components/DiffView.tsx';
import { type DiffPart, diffChars, diffCounts } from '../lib/diff.ts';
import { ConfirmButton, type Outcome } from '../components/Edit.tsx';
import { JsonView } from '../components/JsonView.tsx';
import { Table } from '../components/Table.tsx';
import { ErrorBox, PageHead, Section, Status, Tabs, type Said } from '../components/ui.tsx';
import { RichText, rootOf, YTree } from '../components/YView.tsx';
import { api } from '../lib/api.ts';
import { ago, bytes, time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { useLocation, type Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

export default function Live({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  // one object per room, not per render: the live view connects once for its room, and a render of this page (the
  // list's Refresh) must not hand it a new one (its connection was closed and opened again on each Refresh)
  const open = useMemo(
    () =>
      params.editorId
        ? ({ apiKey, organizationId: params.organizationId as string, documentId: params.documentId as string, editorId: params.editorId } as CrdtKey)
        : null,
    [apiKey, params.organizationId, params.documentId, params.editorId],
  );
  const openId = open ? `${open.organizationId}/${open.documentId}/${open.editorId}` : null;
  const [refreshed, setRefreshed] = useState(0);
  return (
    <>
      <PageHead
        title={open ? `${open.documentId} / ${open.editorId}` : 'Live documents'}
        crumbs={[
          { label: `Key ${apiKey}`, href: links.key(apiKey) },
          { label: 'Live documents', href: links.crdtList(apiKey) },
          ...(open
            ? [
                { label: open.organizationId, href: links.organization(apiKey, open.organizationId) },
                { label: open.documentId, href: links.document(apiKey, open.organizationId, open.documentId) },
                { label: open.editorId },
              ]
            : []),
        ]}
      >
        <button type="button" id="crdt-refresh" onClick={() => setRefreshed((n) => n + 1)}>
          Refresh the list
        </button>
      </PageHead>
      {/* with a document open, narrow windows show it first and the list after it (style.css .live-split) */}
      <div class={`split live-split${open ? ' has-open' : ''}`}>
        <div class="live-list">
          <Table<CrdtItem>
            id="crdt-list"
            search="Search: org/doc, an id or a document's name"
            caption="Collaborative documents"
            deps={[apiKey, refreshed]}
            limit={25}
            selected={openId}
            load={(a) => api.crdtList({ apiKey, ...a })}
            rowKey={(r) => `${r.organizationId}/${r.documentId}/${r.editorId}`}
            rowData={(r) => ({ doc: `${r.organizationId}/${r.documentId}/${r.editorId}` })}
            columns={[
              {
                id: 'doc',
                label: 'Document',
                sort: 'document',
                render: (r) => (
                  <a href={links.crdt(apiKey, r.organizationId, r.documentId, r.editorId)}>{`${r.organizationId} / ${r.documentId} / ${r.editorId}`}</a>
                ),
              },
              { id: 'type', label: 'Type', render: (r) => r.type },
              { id: 'log', label: 'Log', class: 'num', render: (r) => r.updateCount },
              { id: 'clients', label: 'Clients', class: 'num', render: (r) => r.connections },
              { id: 'updated', label: 'Updated', render: (r) => ago(r.updatedAt) },
            ]}
          />
        </div>
        <div class="sticky live-open">{open ? <LiveView key={openId} room={open} /> : <p class="muted">Choose a document: it opens here, live.</p>}</div>
      </div>
    </>
  );
}

interface Presence {
  clientId: number;
  state: Record<string, unknown>;
}

const contentOf = (doc: Y.Doc, type: string, contentKey: string): { text: string; json: unknown } => {
  const root = rootOf(doc, contentKey, { type, contentKey });
  if (root instanceof Y.Text) return { text: root.toString(), json: root.toString() };
  if (root instanceof Y.XmlFragment) return { text: root.toString(), json: root.toString() };
  const json = (root as Y.Map<unknown> | Y.Array<unknown>).toJSON();
  return { text: JSON.stringify(json, null, 2), json };
};

function LiveView({ room }: { room: CrdtKey }) {
  const { query } = useLocation();
  const tab = query.get('tab') ?? 'content';
  const [doc] = useState(() => new Y.Doc());
  const [state, setState] = useState('connecting…');
  const [version, setVersion] = useState(0);
  // the version the first sync brought: changes after it are highlighted, not the content as it loaded
  const versionNow = useRef(0);
  const [syncedAt, setSyncedAt] = useState<number | null>(null);
  const [presence, setPresence] = useState<Presence[]>([]);
  const [kind, setKind] = useState<{ type: string; contentKey: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let provider: WebsocketProvider | null = null;
    let stopped = false;
    (async () => {
      try {
        const [{ ticket }, now] = await Promise.all([api.crdtTicket(room), api.crdtState(room)]);
        if (stopped) return;
        setKind({ type: now.type, contentKey: now.contentKey });
        const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/yjs`;
        const name = [room.organizationId, room.documentId, room.editorId].map(encodeURIComponent).join('/');
        provider = new WebsocketProvider(url, name, doc, { params: { apiKey: room.apiKey, ticket }, disableBc: true });
        provider.awareness.setLocalState(null);
        provider.on('sync', (synced: boolean) => {
          if (synced) setSyncedAt((at) => at ?? versionNow.current);
        });
        provider.on('status', ({ status }: { status: string }) => setState(status === 'connected' ? 'live (read-only)' : status));
        const aware = provider.awareness;
        aware.on('change', () => {
          const others: Presence[] = [];
          for (const [clientId, s] of aware.getStates()) if (clientId !== doc.clientID) others.push({ clientId, state: s as Record<string, unknown> });
          setPresence(others);
        });
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
      }
    })();
    const onUpdate = () => {
      versionNow.current++;
      setVersion(versionNow.current);
    };
    doc.on('update', onUpdate);
    return () => {
      stopped = true;
      doc.off('update', onUpdate);
      provider?.destroy();
      doc.destroy();
    };
  }, [doc, room]);

  const now = useMemo(() => (kind ? contentOf(doc, kind.type, kind.contentKey) : null), [doc, kind, version]);
  const xml = kind?.type === 'xml';
  return (
    <section class="card" id="crdt-view" aria-labelledby="crdt-title">
      <div class="card-head">
        <h2 id="crdt-title">
          {room.organizationId} / {room.documentId} / {room.editorId}{' '}
          {kind && (
            <span class="muted">
              ({kind.type}, {kind.contentKey})
            </span>
          )}
        </h2>
        <span id="crdt-state" class="muted" role="status">
          {state}
        </span>
      </div>
      <ErrorBox error={error} />
      <p>
        Connected clients: <span id="crdt-clients">{presence.length}</span>
      </p>
      {presence.length > 0 && (
        <ul class="presence" id="presence" aria-label="Presence">
          {presence.map((p) => {
            const user = p.state.user as { name?: unknown; id?: unknown } | undefined;
            const label = typeof user?.name === 'string' ? user.name : typeof user?.id === 'string' ? user.id : `client ${p.clientId}`;
            return (
              <li key={p.clientId} data-client={p.clientId} title={JSON.stringify(p.state)}>
                {label}
              </li>
            );
          })}
        </ul>
      )}
      <Tabs
        label="Document views"
        current={tab}
        tabs={[
          { id: 'content', label: 'Content' },
          { id: 'tree', label: 'Shared types' },
          { id: 'history', label: 'History' },
        ]}
      />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'content' &&
          now &&
          (xml ? (
            <XmlContent doc={doc} contentKey={kind?.contentKey ?? 'content'} raw={now.text} />
          ) : (
            <LiveText text={now.text} mark={syncedAt !== null && version > syncedAt} />
          ))}
        {tab === 'tree' && kind && <YTree doc={doc} known={kind} id="crdt-tree" key={version} />}
        {tab === 'history' && now && <History room={room} nowText={now.text} version={version} />}
      </div>
      <p class="row">
        <a href={api.crdtExportUrl(room, 'json')} download id="export-json">
          Export JSON
        </a>
        <a href={api.crdtExportUrl(room, 'yjs')} download id="export-yjs">
          Export Yjs update (binary)
        </a>
      </p>
    </section>
  );
}

/** How long a change stays highlighted. */
const RECENT_MS = 4000;

/**
 * The content as text, wrapping, with what changed recently marked: each change is diffed by character against the
 * text before it, and what it added stays highlighted for a few seconds (what it removed is gone from the text).
 */
function LiveText({ text, mark }: { text: string; mark: boolean }) {
  const [shown, setShown] = useState<{ text: string; parts: DiffPart[] | null }>({ text, parts: null });
  useEffect(() => {
    if (text === shown.text) return;
    if (!mark) return setShown({ text, parts: null });
    const parts = diffChars(shown.text, text);
    setShown({ text, parts: parts && parts.some((p) => p.kind === 'added') ? parts : null });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  useEffect(() => {
    if (!shown.parts) return;
    const timer = setTimeout(() => setShown((s) => ({ text: s.text, parts: null })), RECENT_MS);
    return () => clearTimeout(timer);
  }, [shown]);
  return (
    <pre tabIndex={0} id="crdt-content" class="live-text">
      {shown.parts
        ? shown.parts
            .filter((p) => p.kind !== 'removed')
            .map((p, i) =>
              p.kind === 'added' ? (
                <mark key={i} class="recent">
                  {p.text}
                </mark>
              ) : (
                p.text
              ),
            )
        : text}
    </pre>
  );
}

function XmlContent({ doc, contentKey, raw }: { doc: Y.Doc; contentKey: string; raw: string }) {
  const [showRaw, setShowRaw] = useState(false);
  return (
    <>
      <p>
        <button type="button" class="small" aria-pressed={showRaw} id="toggle-xml" onClick={() => setShowRaw(!showRaw)}>
          {showRaw ? 'Formatted' : 'Raw XML'}
        </button>
      </p>
      {showRaw ? (
        <pre tabIndex={0} id="crdt-xml">
          {raw}
        </pre>
      ) : (
        <RichText fragment={doc.getXmlFragment(contentKey)} id="crdt-rich" />
      )}
    </>
  );
}

const textOf = (s: StateAnswer) => (typeof s.content === 'string' ? s.content : JSON.stringify(s.content, null, 2));

function History({ room, nowText, version }: { room: CrdtKey; nowText: string; version: number }) {
  const history = useLoad(() => api.crdtHistory(room), [JSON.stringify(room), version]);
  // the diff's two ends: `chosen` (from) and `to` (another entry, or null: the document now)
  const [chosen, setChosen] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [then, setThen] = useState<StateAnswer | null>(null);
  const [other, setOther] = useState<StateAnswer | null>(null);
  const [said, setSaid] = useState<Said | null>(null);
  useEffect(() => {
    if (chosen === null) return setThen(null);
    let stale = false;
    api.crdtState(room, chosen).then(
      (s) => !stale && setThen(s),
      (e: unknown) => !stale && setSaid({ text: String(e), tone: 'bad' }),
    );
    return () => void (stale = true);
  }, [chosen, room]);
  useEffect(() => {
    if (to === null) return setOther(null);
    let stale = false;
    api.crdtState(room, to).then(
      (s) => !stale && setOther(s),
      (e: unknown) => !stale && setSaid({ text: String(e), tone: 'bad' }),
    );
    return () => void (stale = true);
  }, [to, room]);
  const entries = [...(history.data?.entries ?? [])].reverse();
  const whenOf = (seq: number | null) => (seq === null ? 'now' : `entry ${seq} (${time(entries.find((e) => e.seq === seq)?.at ?? null)})`);
  /** What a restore of `then` changes against the document now. */
  const change = (s: StateAnswer) => {
    const parts = diffChars(nowText, textOf(s));
    return parts ? diffCounts(parts) : null;
  };
  const restore = async (): Promise<Outcome> => {
    if (chosen === null || !then) return { ok: false, message: 'Choose an entry first.' };
    const counts = change(then);
    try {
      const r = await api.crdtRestore(room, chosen);
      setSaid({
        text: `Restored the document as it was at ${whenOf(r.seq)}, as a new update of ${bytes(r.bytes)}${counts ? `: +${counts.added} −${counts.removed} characters` : ''}. Connected editors have received it.`,
        tone: 'ok',
      });
      history.reload();
      return { ok: true, message: 'restored' };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
  };
  const toText = to === null ? nowText : other ? textOf(other) : null;
  return (
    <div class="stack">
      <ErrorBox error={history.error} />
      {history.data && (
        <p class="muted">
          The last {history.data.kept.toLocaleString('en-US')} stored updates are kept (setting <code>crdtHistoryUpdates</code>); older ones are merged into the
          first entry. Choose one with Show (from) and another with Compare to (to; the document now unless chosen).
        </p>
      )}
      {history.data && history.data.entries.length === 0 && (
        <p id="history-empty" class="muted">
          No stored updates since the document was last compacted (or seeded): its history starts with the next change.
        </p>
      )}
      <div class="history-list">
        <table id="history-list">
          <caption class="visually-hidden">Stored updates, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col" class="num">
                Size
              </th>
              <th scope="col">Compare</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e: HistoryEntry) => (
              <tr key={e.seq} data-seq={e.seq} class={chosen === e.seq || to === e.seq ? 'selected' : ''}>
                <td>{time(e.at)}</td>
                <td class="who">{e.merged ? <span class="muted">everything before (merged)</span> : e.by}</td>
                <td class="num">{bytes(e.bytes)}</td>
                <td class="row">
                  <button
                    type="button"
                    class="small"
                    aria-pressed={chosen === e.seq}
                    aria-label={`Show entry ${e.seq} (from)`}
                    onClick={() => setChosen(e.seq)}
                  >
                    Show
                  </button>
                  <button
                    type="button"
                    class="small"
                    aria-pressed={to === e.seq}
                    aria-label={`Compare to entry ${e.seq}`}
                    onClick={() => setTo(to === e.seq ? null : e.seq)}
                  >
                    Compare to
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {then && (
        <Section title={`As it was at ${time(entries.find((e) => e.seq === then.seq)?.at ?? null)}`} id="history-state">
          <div class="row">
            <ConfirmButton
              id="restore"
              label="Restore this state"
              title="Restore this state?"
              confirmLabel="Restore"
              details={() => {
                const counts = change(then);
                return (
                  <p id="restore-what">
                    The document becomes as it was at {whenOf(then.seq)}
                    {counts ? `: +${counts.added} −${counts.removed} characters against now` : ''}. It is applied as a new update: connected editors receive it
                    and keep editing, and the history keeps every entry, so this restore can itself be undone from here.
                  </p>
                );
              }}
              action={restore}
            />
          </div>
          <h3>Then</h3>
          {typeof then.content === 'string' ? (
            <pre tabIndex={0} id="history-content" class="wrap">
              {then.content}
            </pre>
          ) : (
            <JsonView value={then.content} id="history-content" label="state" />
          )}
          <h3>
            Diff to {to === null ? 'now' : whenOf(to)}
            {to !== null && (
              <button type="button" class="small" id="compare-now" onClick={() => setTo(null)}>
                Compare to now
              </button>
            )}
          </h3>
          {toText === null ? (
            <p class="muted">Loading…</p>
          ) : (
            <WordDiffView before={textOf(then)} after={toText} id="history-diff" beforeLabel={whenOf(then.seq)} afterLabel={to === null ? 'now' : whenOf(to)} />
          )}
        </Section>
      )}
      <Status said={said} id="history-status" />
    </div>
  );
}
