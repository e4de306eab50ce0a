// One webhook endpoint: edit, enable and disable (with the reason it was disabled), reveal and rotate its secret,
// send a test event, its attempts with the full request and response, replay one, recover failed deliveries. The
// attempts and deliveries (event type, state, next retry) are read again every two seconds while the page shows.
import { useState } from 'preact/hooks';
import type { AttemptView, DeliveryAnswer, EndpointView } from '../../../shared/admin.ts';
import { Badge, ErrorBox, Facts, Loading, PageHead, Section, Sparkline, Status, type Said } from '../components/ui.tsx';

/** Attempts per day over the last 14 days (of the last 100 listed), oldest first. */
function perDay(attempts: AttemptView[]): number[] {
  const day = 24 * 60 * 60 * 1000;
  const today = Math.floor(Date.now() / day);
  const counts = new Array<number>(14).fill(0);
  for (const a of attempts) {
    const i = 13 - (today - Math.floor(Date.parse(a.timestamp) / day));
    if (i >= 0 && i < 14) counts[i] = (counts[i] as number) + 1;
  }
  return counts;
}
import { api, dataOf } from '../lib/api.ts';
import { ms, pretty, time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { loadOperations } from '../lib/openapi.ts';
import { navigate, type Params } from '../lib/router.ts';
import { useInterval, useLoad } from '../lib/use.ts';
import { DeliveryTable } from './Deliveries.tsx';
import { endpointState } from './Webhooks.tsx';

export default function Endpoint({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const endpointId = params.endpointId as string;
  const [said, setSaid] = useState<Said | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<AttemptView | null>(null);
  const endpoint = useLoad(
    async () =>
      dataOf<{ endpoints: EndpointView[] }>(await api.call('/v2/workspace/advancedwebhook/endpoints/get', apiKey, { endpointId })).endpoints[0] ?? null,
    [apiKey, endpointId],
  );
  const attempts = useLoad(
    async () => dataOf<{ attempts: AttemptView[] }>(await api.call('/v2/workspace/advancedwebhook/attempts/list', apiKey, { endpointId, limit: 100 })).attempts,
    [apiKey, endpointId],
  );
  // the endpoint's deliveries (event type, state, next retry); with the attempts, read again every two seconds
  // while the page is visible, so new attempts appear without a refresh
  const log = useLoad(() => api.deliveries({ apiKey, endpointId, limit: 100 }), [apiKey, endpointId]);
  useInterval(() => {
    attempts.reload();
    log.reload();
  }, 2000);
  const typeOf = new Map((log.data?.items ?? []).map((d) => [d.eventId, d.eventType]));
  const eventTypes = useLoad(async () => {
    const { operations } = await loadOperations();
    const schema = operations.find((o) => o.path === '/v2/workspace/advancedwebhook/endpoints/create')?.schema;
    return (schema?.properties?.filterTypes?.items?.enum ?? []) as string[];
  }, []);
  const e = endpoint.data;
  const tell = (ok: boolean, text: string) => setSaid({ text, tone: ok ? 'ok' : 'bad' });
  const refresh = () => {
    endpoint.reload();
    attempts.reload();
    log.reload();
  };

  const update = async (patch: { url?: string; description?: string; disabled?: boolean; filterTypes?: string[] | null }, done: string) => {
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/update', apiKey, { endpointId, ...(patch as { filterTypes?: never }) });
    tell(answer.status === 200, answer.status === 200 ? done : (answer.body.error?.message ?? 'Update failed.'));
    refresh();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const filterTypes = form.getAll('filterTypes').map(String);
    await update(
      { url: String(form.get('url') ?? '').trim(), description: String(form.get('description') ?? ''), filterTypes: filterTypes.length ? filterTypes : null },
      'Endpoint saved.',
    );
  };
  const reveal = async () => {
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/secret/get', apiKey, { endpointId });
    setSecret(answer.status === 200 ? ((answer.body.result?.data as { secret: string } | undefined)?.secret ?? '') : null);
    if (answer.status !== 200) tell(false, answer.body.error?.message ?? 'Could not read the secret.');
  };
  const rotate = async () => {
    if (!confirm('Rotate the signing secret? The previous one keeps signing for a while (the rotation overlap).')) return;
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', apiKey, { endpointId });
    tell(answer.status === 200, answer.status === 200 ? 'Secret rotated.' : (answer.body.error?.message ?? 'Rotation failed.'));
    if (secret !== null) await reveal();
  };
  const test = async () => {
    try {
      const sent = await api.webhookTest(apiKey, endpointId);
      tell(true, `Test event ${sent.eventType} queued as ${sent.messageId}.`);
      setTimeout(refresh, 1000);
    } catch (err) {
      tell(false, err instanceof Error ? err.message : String(err));
    }
  };
  const replay = async (a: AttemptView) => {
    const answer = await api.call('/v2/workspace/advancedwebhook/messages/replay', apiKey, { messageId: a.messageId, endpointId });
    tell(answer.status === 200, answer.status === 200 ? `Replay of ${a.messageId} started.` : (answer.body.error?.message ?? 'Replay failed.'));
  };
  const recover = async () => {
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/recover', apiKey, { endpointId, since: Date.now() - 24 * 3600 * 1000 });
    tell(
      answer.status === 200,
      answer.status === 200
        ? `${String((answer.body.result?.data as { recovered?: number } | undefined)?.recovered ?? 0)} failed deliveries sent again.`
        : (answer.body.error?.message ?? 'Recover failed.'),
    );
  };
  const remove = async () => {
    if (!confirm(`Delete the endpoint ${endpointId}?`)) return;
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/delete', apiKey, { endpointId });
    if (answer.status === 200) navigate(links.webhooks(apiKey));
    else tell(false, answer.body.error?.message ?? 'Delete failed.');
  };

  return (
    <>
      <PageHead
        title={endpointId}
        crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Webhooks', href: links.webhooks(apiKey) }, { label: endpointId }]}
      >
        {attempts.data && <Sparkline values={perDay(attempts.data)} label="attempts, last 14 days" />}
        <button type="button" class="primary" id="send-test" onClick={() => void test()}>
          Send a test event
        </button>
        <button type="button" id="refresh" onClick={refresh}>
          Refresh
        </button>
      </PageHead>
      <Status said={said} id="webhooks-status" />
      <ErrorBox error={endpoint.error} />
      {endpoint.data === undefined && !endpoint.error && <Loading />}
      {endpoint.data === null && <p class="error">No such endpoint.</p>}
      {e && (
        <div class="split">
          <div>
            <Section title="Endpoint" id="endpoint">
              <Facts
                id="endpoint-facts"
                items={[
                  ['URL', e.url],
                  ['State', <span id="endpoint-state">{endpointState(e)}</span>],
                  ['Events', e.filterTypes?.length ? e.filterTypes.join(', ') : 'all'],
                  ['Created', e.createdAt ?? ''],
                  [
                    'Secret',
                    <span id="endpoint-secret">
                      {secret ? <code>{secret}</code> : <span class="muted">hidden</span>}{' '}
                      <button type="button" class="small" onClick={() => void reveal()}>
                        Reveal
                      </button>{' '}
                      <button type="button" class="small" onClick={() => void rotate()}>
                        Rotate
                      </button>
                    </span>,
                  ],
                ]}
              />
              <div class="row">
                <button
                  type="button"
                  id="endpoint-enable"
                  onClick={() => void update({ disabled: !e.disabled }, e.disabled ? 'Endpoint enabled.' : 'Endpoint disabled.')}
                >
                  {e.disabled ? 'Enable' : 'Disable'}
                </button>
                <button type="button" onClick={() => void recover()}>
                  Recover the last 24 h
                </button>
                <button type="button" class="danger" onClick={() => void remove()}>
                  Delete
                </button>
              </div>
            </Section>
            <Section title="Edit" id="endpoint-edit">
              <form class="form" id="endpoint-form" key={e.updatedAt} onSubmit={(ev) => void save(ev)}>
                <label>
                  URL
                  <input name="url" type="url" required value={e.url} />
                </label>
                <label>
                  Description
                  <input name="description" value={e.description ?? ''} />
                </label>
                <fieldset>
                  <legend>Events (none chosen: all)</legend>
                  <div class="grid">
                    {(eventTypes.data ?? []).map((t) => (
                      <label class="inline" key={t}>
                        <input type="checkbox" name="filterTypes" value={t} checked={e.filterTypes?.includes(t) ?? false} /> {t}
                      </label>
                    ))}
                  </div>
                </fieldset>
                <button type="submit" class="primary">
                  Save
                </button>
              </form>
            </Section>
          </div>
          <div>
            <Section title="Attempts" id="attempts">
              <ErrorBox error={attempts.error} />
              <table id="attempt-list">
                <caption class="visually-hidden">Delivery attempts, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Message</th>
                    <th scope="col">Event</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Result</th>
                    <th scope="col">HTTP</th>
                    <th scope="col" class="num">
                      ms
                    </th>
                    <th scope="col" />
                  </tr>
                </thead>
                <tbody>
                  {(attempts.data ?? []).map((a) => (
                    <tr
                      key={a.id}
                      data-message={a.messageId}
                      data-attempt={a.id}
                      class={`${a.status === 'succeeded' ? '' : 'failed'} ${open?.id === a.id ? 'selected' : ''}`}
                    >
                      <td>
                        <button type="button" class="link" onClick={() => setOpen(a)}>
                          {time(Date.parse(a.timestamp))}
                        </button>
                      </td>
                      <td class="id">{a.messageId}</td>
                      <td class="event-type">{typeOf.get(a.messageId) ?? '—'}</td>
                      <td>{a.trigger}</td>
                      <td>{a.status === 'succeeded' ? <Badge tone="ok">succeeded</Badge> : <Badge tone="bad">failed</Badge>}</td>
                      <td>{a.responseStatusCode ?? '—'}</td>
                      <td class="num">{a.responseDurationMs}</td>
                      <td>
                        <button type="button" class="small" onClick={() => void replay(a)}>
                          Replay
                        </button>
                      </td>
                    </tr>
                  ))}
                  {attempts.data?.length === 0 && (
                    <tr>
                      <td colSpan={8} class="muted">
                        No attempts yet.
                      </td>
                    </tr>
                  )}
                </tbody>
              </table>
            </Section>
            <Section title="Deliveries" id="endpoint-deliveries">
              <ErrorBox error={log.error} />
              <DeliveryTable items={log.data?.items} />
            </Section>
            {open && <AttemptDetail apiKey={apiKey} endpointId={endpointId} attempt={open} />}
          </div>
        </div>
      )}
    </>
  );
}

function AttemptDetail({ apiKey, endpointId, attempt }: { apiKey: string; endpointId: string; attempt: AttemptView }) {
  const at = Date.parse(attempt.timestamp);
  const sent = useLoad<DeliveryAnswer | null>(
    () => api.delivery(apiKey, attempt.messageId, endpointId, { id: attempt.id, at }).catch(() => null),
    [apiKey, attempt.messageId, endpointId, attempt.id],
  );
  const d = sent.data;
  const waiting = sent.loading ? 'Loading…' : 'The delivery is no longer stored.';
  const responseHeaders = d?.responseHeaders
    ? [...d.responseHeaders, ...(d.responseHeadersOmitted ? [`(${d.responseHeadersOmitted} more not kept: an attempt keeps 50 headers, 4 KB)`] : [])].join('\n')
    : null;
  return (
    <Section title={`Attempt ${attempt.id}`} id="attempt-detail">
      <p class="muted">
        {attempt.trigger} · {attempt.status} · {ms(attempt.responseDurationMs)}
      </p>
      <div class="pair">
        <div>
          <h3>Request headers</h3>
          <pre tabIndex={0} id="attempt-request-headers" aria-label="Request headers">
            {d ? `${d.method} ${d.url}\n${d.headers.join('\n')}` : waiting}
          </pre>
          {d?.headersFrom === 'recomputed' && (
            <p class="muted" id="attempt-headers-recomputed">
              Recorded before Hearth kept each attempt's headers: worked out again (the signature under the current secret).
            </p>
          )}
        </div>
        <div>
          <h3>Response headers</h3>
          <pre tabIndex={0} id="attempt-response-status" aria-label="Response status">
            {attempt.responseStatusCode === null ? 'no HTTP answer (network error or timeout)' : `HTTP ${attempt.responseStatusCode}`}
          </pre>
          <pre tabIndex={0} id="attempt-response-headers" aria-label="Response headers">
            {responseHeaders ?? (d ? (attempt.responseStatusCode === null ? '(none: no answer)' : '(not kept for this attempt)') : waiting)}
          </pre>
        </div>
      </div>
      <h3>Request body</h3>
      <pre tabIndex={0} id="attempt-request">
        {d ? pretty(d.body) : waiting}
      </pre>
      <h3>Response body</h3>
      <pre tabIndex={0} id="attempt-response">
        {attempt.response || '(empty)'}
      </pre>
    </Section>
  );
}
