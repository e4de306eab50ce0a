// The workspace-wide delivery log (issue 44, point 5): the newest webhook deliveries of every key of the workspace,
// with the event type, the state (a failed attempt with a retry due is "retrying", with its time), attempts and the
// last answer; a state filter in the URL; live (read again every two seconds while the page is visible).
import type { DeliveryLogItem } from '../../../shared/admin.ts';
import { Badge, ErrorBox, PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { num, time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { setQuery, useLocation } from '../lib/router.ts';
import { useInterval, useLoad } from '../lib/use.ts';

export const STATES = ['pending', 'retrying', 'succeeded', 'failed'] as const;

/** A delivery's state as a badge; a retry names its time. */
export function deliveryState(d: DeliveryLogItem) {
  if (d.state === 'succeeded') return <Badge tone="ok">succeeded</Badge>;
  if (d.state === 'failed') return <Badge tone="bad">failed: gave up</Badge>;
  if (d.state === 'retrying') return <Badge tone="bad">{`retrying at ${time(d.nextAttemptAt)}`}</Badge>;
  return <Badge>waiting</Badge>;
}

export default function Deliveries() {
  const { query } = useLocation();
  const state = query.get('state') ?? '';
  const message = query.get('message') ?? '';
  const log = useLoad(() => api.deliveries({ status: state || undefined, messageId: message || undefined, limit: 200 }), [state, message]);
  useInterval(log.reload, 2000);
  const counts = log.data?.counts;
  return (
    <>
      <PageHead title="Webhook deliveries" />
      <p>Every webhook delivery of this workspace's keys, newest first, as the delivery worker records it; live.</p>
      <ErrorBox error={log.error} />
      {counts && (
        <p id="delivery-counts">
          {num(counts.failed)} failed (gave up) · {num(counts.retrying)} retrying · {num(counts.pending)} waiting
        </p>
      )}
      <div class="filters" role="search">
        <label>
          <span>State</span>
          <select id="delivery-state" value={state} onChange={(e) => setQuery('state', (e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Message id</span>
          <input
            id="delivery-message"
            type="search"
            value={message}
            placeholder="msg_…"
            onInput={(e) => setQuery('message', (e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <Section title="Deliveries" id="deliveries">
        <DeliveryTable items={log.data?.items} showKey />
      </Section>
    </>
  );
}

export function DeliveryTable({ items, showKey }: { items: DeliveryLogItem[] | undefined; showKey?: boolean }) {
  return (
    <table id="delivery-list">
      <caption class="visually-hidden">Webhook deliveries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Created</th>
          {showKey && <th scope="col">Key</th>}
          <th scope="col">Endpoint</th>
          <th scope="col">Event</th>
          <th scope="col">Message</th>
          <th scope="col">State</th>
          <th scope="col" class="num">
            Attempts
          </th>
          <th scope="col">Last HTTP</th>
        </tr>
      </thead>
      <tbody>
        {(items ?? []).map((d) => (
          <tr key={`${d.apiKeyId}/${d.eventId}/${d.target}`} data-message={d.eventId} data-state={d.state}>
            <td>{time(d.createdAt)}</td>
            {showKey && (
              <td class="id">
                <a href={links.webhooks(d.apiKeyId)}>{d.apiKeyId}</a>
              </td>
            )}
            <td class="id">{d.target.startsWith('http') ? d.target : <a href={links.endpoint(d.apiKeyId, d.target)}>{d.target}</a>}</td>
            <td>{d.eventType ?? '—'}</td>
            <td class="id">{d.eventId}</td>
            <td>{deliveryState(d)}</td>
            <td class="num">{d.attempts}</td>
            <td>{d.lastStatusCode ?? (d.attempts > 0 ? 'no answer' : '—')}</td>
          </tr>
        ))}
        {items?.length === 0 && (
          <tr>
            <td colSpan={showKey ? 8 : 7} class="muted">
              No deliveries.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
