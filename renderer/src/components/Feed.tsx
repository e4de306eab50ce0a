// Notifications and activity of an organization, a document or a user: every row, paged, as the admin sees them
// (the operations answer a recipient's feed; the admin reads the organization's).
import type { ActivityItem, FeedQuery, NotificationItem } from '../../../shared/admin.ts';
import { api } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { setQuery, useLocation } from '../lib/router.ts';
import { Table } from './Table.tsx';

type Scope = Omit<FeedQuery, 'q' | 'cursor' | 'limit' | 'dir'>;

export function Notifications({ scope, version = 0 }: { scope: Scope; version?: number }) {
  const { apiKey, organizationId } = scope;
  return (
    <Table<NotificationItem>
      id="notifications"
      caption="Notifications"
      deps={[JSON.stringify(scope), version]}
      defaultDir="desc"
      load={(a) => api.notifications({ ...scope, ...a })}
      rowKey={(n) => n.id}
      rowData={(n) => ({ notification: n.id })}
      columns={[
        { id: 'time', label: 'Time', sort: 'time', render: (n) => time(n.timestamp) },
        { id: 'headline', label: 'Headline', render: (n) => n.headline },
        { id: 'body', label: 'Body', render: (n) => n.body ?? '' },
        {
          id: 'document',
          label: 'Document',
          render: (n) =>
            n.documentId ? <a href={links.document(apiKey, organizationId, n.documentId)}>{n.documentId}</a> : <span class="muted">organization</span>,
        },
        { id: 'by', label: 'By', render: (n) => (n.actionUserId ? <a href={links.user(apiKey, n.actionUserId)}>{n.actionUserId}</a> : '') },
        { id: 'recipients', label: 'Recipients', class: 'num', render: (n) => n.recipients },
      ]}
    />
  );
}

const FEATURES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'];

export function Activity({ scope }: { scope: Scope }) {
  const { query } = useLocation();
  const featureType = query.get('feature') ?? '';
  const actionType = query.get('action') ?? '';
  const { apiKey, organizationId } = scope;
  const full = { ...scope, ...(featureType ? { featureType } : {}), ...(actionType ? { actionType } : {}) };
  return (
    <Table<ActivityItem>
      id="activity"
      caption="Activity"
      search={false}
      deps={[JSON.stringify(full)]}
      defaultDir="desc"
      filters={
        <>
          <label>
            <span>Feature</span>
            <select value={featureType} onChange={(e) => setQuery('feature', (e.target as HTMLSelectElement).value)} data-filter="feature">
              <option value="">any</option>
              {FEATURES.map((f) => (
                <option key={f}>{f}</option>
              ))}
            </select>
          </label>
          <label>
            <span>Action</span>
            <input
              value={actionType}
              placeholder="comment.add"
              onChange={(e) => setQuery('action', (e.target as HTMLInputElement).value.trim())}
              data-filter="action"
            />
          </label>
        </>
      }
      load={(a) => api.activity({ ...full, ...a })}
      rowKey={(x) => x.id}
      columns={[
        { id: 'time', label: 'Time', sort: 'time', render: (x) => time(x.timestamp) },
        { id: 'feature', label: 'Feature', render: (x) => x.featureType },
        { id: 'action', label: 'Action', render: (x) => x.actionType },
        { id: 'by', label: 'By', render: (x) => (x.actionUserId ? <a href={links.user(apiKey, x.actionUserId)}>{x.actionUserId}</a> : '') },
        {
          id: 'document',
          label: 'Document',
          render: (x) => (x.documentId ? <a href={links.document(apiKey, organizationId, x.documentId)}>{x.documentId}</a> : ''),
        },
        { id: 'message', label: 'Message', render: (x) => x.message },
      ]}
    />
  );
}
