// The API explorer: a form generated from each operation's schema (and its JSON beside it), sent as the
// signed-in workspace (the server adds the workspace's or the chosen key's credentials), with the answer, and the
// same call as curl or fetch to copy.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { JsonView } from '../components/JsonView.tsx';
import { SchemaForm } from '../components/SchemaForm.tsx';
import { CopyButton, ErrorBox, PageHead, Section } from '../components/ui.tsx';
import { api, type OperationAnswer } from '../lib/api.ts';
import { asCurl, asFetch } from '../lib/curl.ts';
import { keyLabel, useSession } from '../lib/keys.ts';
import { exampleOf, loadOperations, type OperationInfo } from '../lib/openapi.ts';
import { navigate, setQuery, useLocation } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

export default function Explorer() {
  const { query } = useLocation();
  const session = useSession();
  const ops = useLoad(loadOperations, []);
  const opPath = query.get('op') ?? '/v2/organizations/get';
  const op: OperationInfo | undefined = ops.data?.operations.find((o) => o.path === opPath);
  const [apiKey, setApiKey] = useState(query.get('key') ?? session.keys[0]?.apiKey ?? '');
  const [value, setValue] = useState<Record<string, unknown>>({});
  const [text, setText] = useState('{}');
  const [textError, setTextError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<OperationAnswer | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [find, setFind] = useState('');
  const answerRef = useRef<HTMLDivElement>(null);
  const conditions = useLoad(() => api.operationConditions(), []);
  const conditional = Object.fromEntries((conditions.data?.[opPath] ?? []).map((c) => [c.field, c.when]));
  // the picker: operations grouped by their first path segment, narrowed by the search (the chosen one stays)
  const groups = useMemo(() => {
    const words = find.trim().toLowerCase();
    const byGroup = new Map<string, OperationInfo[]>();
    for (const o of ops.data?.operations ?? []) {
      if (words && o.path !== opPath && !`${o.path} ${o.summary}`.toLowerCase().includes(words)) continue;
      const group = o.path.split('/')[2] ?? 'other';
      byGroup.set(group, [...(byGroup.get(group) ?? []), o]);
    }
    return [...byGroup.entries()];
  }, [ops.data, find, opPath]);
  const firstFound = groups.flatMap(([, list]) => list).find((o) => o.path !== opPath);

  // a new operation starts from the data in the URL (a call opened from the monitor) or an example of its schema
  useEffect(() => {
    if (!op) return;
    let start: Record<string, unknown>;
    try {
      start = query.get('data') ? (JSON.parse(query.get('data') as string) as Record<string, unknown>) : (exampleOf(op.schema) as Record<string, unknown>);
    } catch {
      start = {};
    }
    setValue(start ?? {});
    setText(JSON.stringify(start ?? {}, null, 2));
    setAnswer(null);
    setSendError(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [op?.path]);

  // the URL follows the edited data (a replace, not a history entry per keystroke), so a reload or a shared link
  // opens the call as it is being written
  useEffect(() => {
    if (!op) return;
    const timer = setTimeout(() => setQuery('data', JSON.stringify(value)), 300);
    return () => clearTimeout(timer);
  }, [value, op?.path]);
  const fromForm = (v: Record<string, unknown>) => {
    setValue(v);
    setText(JSON.stringify(v, null, 2));
    setTextError(null);
  };
  const fromText = (t: string) => {
    setText(t);
    try {
      const parsed = JSON.parse(t || '{}') as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        setValue(parsed as Record<string, unknown>);
        setTextError(null);
      } else setTextError('data must be a JSON object');
    } catch (e) {
      setTextError(`data is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const send = async () => {
    if (!op) return;
    if (textError) return setSendError(textError);
    setSending(true);
    setSendError(null);
    try {
      setAnswer(await api.callAny(op.path, op.auth === 'apiKey' ? apiKey : '', value));
    } catch (e) {
      setAnswer(null);
      setSendError(e instanceof Error ? e.message : String(e));
    } finally {
      setSending(false);
      // the answer in view, wherever the form left the page
      requestAnimationFrame(() => answerRef.current?.scrollIntoView({ block: 'start' }));
    }
  };
  const shape = useMemo(
    () =>
      op
        ? {
            path: op.path,
            auth: op.auth,
            data: value,
            brand: ops.data?.brand ?? 'svc',
            ...(op.auth === 'apiKey' ? { apiKey } : {}),
            ...(op.auth === 'workspace' ? { workspaceId: session.workspaceId } : {}),
          }
        : null,
    [op, value, apiKey, ops.data, session.workspaceId],
  );

  return (
    <>
      <PageHead title="API explorer" />
      <p>Calls an operation as the signed-in workspace: the server adds the workspace's or the chosen API key's credentials.</p>
      <ErrorBox error={ops.error} />
      <div class="filters">
        <label>
          <span>Find an operation</span>
          <input
            id="explorer-find"
            type="search"
            value={find}
            placeholder="path or summary, Enter opens the first"
            onInput={(e) => setFind((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && firstFound) {
                e.preventDefault();
                navigate(`/explorer?op=${encodeURIComponent(firstFound.path)}`, true);
              }
            }}
          />
        </label>
        <label>
          <span>Operation</span>
          <select id="explorer-op" value={opPath} onChange={(e) => navigate(`/explorer?op=${encodeURIComponent((e.target as HTMLSelectElement).value)}`, true)}>
            {groups.map(([group, list]) => (
              <optgroup key={group} label={group}>
                {list.map((o) => (
                  <option key={o.path} value={o.path}>
                    {o.path}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </label>
        <label>
          <span>API key</span>
          <select id="explorer-key" value={apiKey} disabled={op?.auth !== 'apiKey'} onChange={(e) => setApiKey((e.target as HTMLSelectElement).value)}>
            {session.keys.map((k) => (
              <option key={k.apiKey} value={k.apiKey}>
                {keyLabel(k)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {op && (
        <p id="explorer-summary" class="muted">
          {op.summary} ({op.auth === 'apiKey' ? 'API key' : op.auth})
        </p>
      )}
      {op && (
        <div class="split">
          <Section title="Data" id="explorer-input">
            <SchemaForm schema={op.schema} value={value} onChange={fromForm} conditional={conditional} pickIds />
            <h3>
              <label for="explorer-data">As JSON</label>
            </h3>
            <textarea id="explorer-data" rows={10} spellcheck={false} value={text} onInput={(e) => fromText((e.target as HTMLTextAreaElement).value)} />
            {textError && <p class="error">{textError}</p>}
            <div class="row">
              <button type="button" class="primary" id="explorer-send" disabled={sending} onClick={() => void send()}>
                Send
              </button>
              {shape && <CopyButton value={asCurl(shape)} label="Copy as curl" name="curl" />}
              {shape && <CopyButton value={asFetch(shape)} label="Copy as fetch" name="fetch" />}
            </div>
            <details>
              <summary>Input schema</summary>
              <pre tabIndex={0} id="explorer-schema">
                {JSON.stringify(op.schema, null, 2)}
              </pre>
            </details>
          </Section>
          <div ref={answerRef} class="explorer-answer-anchor">
            <Section title="Answer" id="explorer-answer">
              <p id="explorer-status" class={sendError ? 'bad' : answer ? (answer.status < 300 ? 'ok' : 'bad') : 'muted'} role="status">
                {sendError ?? (answer ? `HTTP ${answer.status}` : 'Not sent yet.')}
              </p>
              {answer && <JsonView value={answer.body} id="explorer-result" label="answer" />}
              {answer && (
                <pre class="visually-hidden" id="explorer-result-text">
                  {JSON.stringify(answer.body, null, 2)}
                </pre>
              )}
            </Section>
          </div>
        </div>
      )}
    </>
  );
}
