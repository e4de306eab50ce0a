// Webhooks of a key: the advanced configuration (on/off), its endpoints with their state (and why one was
// disabled), and a form to create one.
import { useState } from 'preact/hooks';
import type { EndpointView } from '../../../shared/admin.ts';
import { Badge, ErrorBox, Facts, PageHead, Section, Status, type Said } from '../components/ui.tsx';
import { api, dataOf } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import { navigate, type Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

export function endpointState(e: EndpointView) {
  return e.disabled ? <Badge tone="bad">{e.disabledReason ? `disabled: ${e.disabledReason}` : 'disabled by hand'}</Badge> : <Badge tone="ok">enabled</Badge>;
}

export default function Webhooks({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const [said, setSaid] = useState<Said | null>(null);
  const config = useLoad(async () => {
    const answer = await api.call('/v2/workspace/advancedwebhookconfig/get', apiKey, {});
    return answer.status === 200 ? (answer.body.result?.data as Record<string, unknown>) : null;
  }, [apiKey]);
  const endpoints = useLoad(
    async () => dataOf<{ endpoints: EndpointView[] }>(await api.call('/v2/workspace/advancedwebhook/endpoints/get', apiKey, { limit: 250 })).endpoints,
    [apiKey],
  );
  const enabled = config.data?.isEnabled === true;
  const toggle = async () => {
    const answer = await api.call('/v2/workspace/advancedwebhookconfig/update', apiKey, { isEnabled: !enabled });
    setSaid(
      answer.status === 200
        ? { text: `Advanced webhooks ${enabled ? 'turned off' : 'turned on'}.`, tone: 'ok' }
        : { text: answer.body.error?.message ?? 'Failed.', tone: 'bad' },
    );
    config.reload();
    endpoints.reload();
  };
  const create = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const description = String(form.get('description') ?? '').trim();
    const answer = await api.call('/v2/workspace/advancedwebhook/endpoints/create', apiKey, {
      url: String(form.get('url') ?? '').trim(),
      ...(description ? { description } : {}),
    });
    if (answer.status === 200) {
      const created = answer.body.result?.data as EndpointView;
      navigate(links.endpoint(apiKey, created.id));
    } else setSaid({ text: answer.body.error?.message ?? 'Create failed.', tone: 'bad' });
  };
  return (
    <>
      <PageHead title="Webhooks" crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Webhooks' }]}>
        <a href={links.deliveries()} id="delivery-log-link">
          Delivery log of the workspace
        </a>
      </PageHead>
      <Section
        title="Advanced webhooks"
        id="webhooks-config"
        actions={
          <button type="button" id="webhooks-toggle" onClick={() => void toggle()}>
            {enabled ? 'Turn off' : 'Turn on'}
          </button>
        }
      >
        <Facts items={Object.entries(config.data ?? { state: 'off' }).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])} />
      </Section>
      <Status said={said} id="webhooks-status" />
      <Section title="Endpoints" id="endpoints">
        <ErrorBox error={endpoints.error} />
        <table id="endpoint-list">
          <caption class="visually-hidden">Webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">URL</th>
              <th scope="col">State</th>
              <th scope="col">Events</th>
            </tr>
          </thead>
          <tbody>
            {(endpoints.data ?? []).map((e) => (
              <tr key={e.id} data-endpoint={e.id}>
                <td class="id">
                  <a href={links.endpoint(apiKey, e.id)}>{e.id}</a>
                </td>
                <td>{e.url}</td>
                <td>{endpointState(e)}</td>
                <td>{e.filterTypes?.length ? e.filterTypes.join(', ') : 'all'}</td>
              </tr>
            ))}
            {endpoints.data?.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">
                  No endpoints yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </Section>
      <Section title="New endpoint" id="endpoint-create">
        {!enabled && <p class="muted">Turn advanced webhooks on first.</p>}
        <form class="row" id="endpoint-create-form" onSubmit={(e) => void create(e)}>
          <label>
            <span>URL</span>
            <input name="url" type="url" required placeholder="https://example.com/webhooks" />
          </label>
          <label>
            <span>Description</span>
            <input name="description" />
          </label>
          <button type="submit" class="primary" disabled={!enabled}>
            Create endpoint
          </button>
        </form>
      </Section>
    </>
  );
}
