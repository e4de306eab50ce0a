// An API key: its state (disable and enable it), its configuration (every setting, edited through the forms of
// apikeyconfig/update and emailconfig/update), allowed domains, AI provider keys (write-only), the permission
// provider's mode and its newest decisions, and links to its data. A disabled key's operations are refused, so its configuration cannot be read until it is enabled again.
import { useEffect, useState } from 'preact/hooks';
import { SchemaForm } from '../components/SchemaForm.tsx';
import { KeyStateBadge, KeyStateButton } from '../components/KeyState.tsx';
import { Badge, ErrorBox, Facts, PageHead, Section, Since, Status, type Said } from '../components/ui.tsx';
import { api, dataOf } from '../lib/api.ts';
import { useSession } from '../lib/keys.ts';
import { links } from '../lib/links.ts';
import { loadOperations } from '../lib/openapi.ts';
import type { Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

const shown = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v));

export default function Key({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const session = useSession();
  const key = session.keys.find((k) => k.apiKey === apiKey);
  const [said, setSaid] = useState<Said | null>(null);
  const usage = useLoad(() => api.key(apiKey), [apiKey]);
  // reloaded when the key is disabled or enabled (a disabled key's operations are refused)
  const config = useLoad(async () => dataOf<Record<string, unknown>>(await api.call('/v2/workspace/apikeyconfig/get', apiKey, {})), [apiKey, key?.disabled]);
  const provider = useLoad(
    async () =>
      dataOf<{ usePermissionProvider: boolean; permissionProviderConfig: { permissionProviderUrl: string } }>(
        await api.call('/v2/workspace/permissionproviderconfig/get', apiKey, {}),
      ),
    [apiKey, key?.disabled],
  );
  const schemas = useLoad(loadOperations, []);
  const configSchema = schemas.data?.operations.find((o) => o.path === '/v2/workspace/apikeyconfig/update')?.schema;
  const emailSchema = schemas.data?.operations.find((o) => o.path === '/v2/workspace/emailconfig/update')?.schema;
  const [settings, setSettings] = useState<Record<string, unknown>>({});
  const [email, setEmail] = useState<Record<string, unknown>>({});
  useEffect(() => {
    if (!config.data || !configSchema) return;
    const editable = Object.keys(configSchema.properties ?? {}).filter((k) => k !== 'aiModelApiKey');
    setSettings(Object.fromEntries(editable.filter((k) => config.data?.[k] !== undefined && config.data?.[k] !== null).map((k) => [k, config.data?.[k]])));
  }, [config.data, configSchema]);
  useEffect(() => {
    void api
      .call('/v2/workspace/emailconfig/get', apiKey, {})
      .then((a) => a.status === 200 && setEmail((a.body.result?.data as Record<string, unknown>) ?? {}));
  }, [apiKey, key?.disabled]);

  const tell = (ok: boolean, text: string) => setSaid({ text, tone: ok ? 'ok' : 'bad' });
  const saveSettings = async () => {
    const answer = await api.call('/v2/workspace/apikeyconfig/update', apiKey, settings);
    tell(answer.status === 200, answer.status === 200 ? 'Configuration saved.' : (answer.body.error?.message ?? 'Save failed.'));
    config.reload();
  };
  const saveEmail = async () => {
    const { useEmailService, emailServiceConfig } = email as { useEmailService?: boolean; emailServiceConfig?: Record<string, unknown> };
    const answer = await api.call('/v2/workspace/emailconfig/update', apiKey, {
      ...(useEmailService === undefined ? {} : { useEmailService }),
      ...(emailServiceConfig ? { emailServiceConfig } : {}),
    });
    tell(answer.status === 200, answer.status === 200 ? 'E-mail configuration saved.' : (answer.body.error?.message ?? 'Save failed.'));
  };
  const domains = async (op: 'add' | 'delete', event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const list = String(new FormData(form).get('domains') ?? '')
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean);
    const answer = await api.call(op === 'add' ? '/v2/workspace/domains/add' : '/v2/workspace/domains/delete', apiKey, { domains: list });
    tell(answer.status === 200, answer.status === 200 ? `Domains ${op === 'add' ? 'added' : 'removed'}.` : (answer.body.error?.message ?? 'Failed.'));
    form.reset();
    config.reload();
  };
  const aiKey = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const baseUrl = String(form.get('baseUrl') ?? '').trim();
    const provider = String(form.get('provider')) as 'openai' | 'anthropic' | 'gemini';
    const answer = await api.call('/v2/workspace/apikeyconfig/update', apiKey, {
      aiModelApiKey: [{ provider, customerApiKey: String(form.get('customerApiKey') ?? ''), baseUrl: baseUrl || null }],
    });
    tell(answer.status === 200, answer.status === 200 ? `${provider} key saved.` : (answer.body.error?.message ?? 'Save failed.'));
    // write-only: the field is cleared, and the configuration shows only that one is configured
    (formElement.elements.namedItem('customerApiKey') as HTMLInputElement).value = '';
    config.reload();
  };

  return (
    <>
      <PageHead title={key?.name || apiKey} crumbs={[{ label: 'Workspace', href: links.workspace() }, { label: `Key ${apiKey}` }]}>
        <a href={links.organizations(apiKey)}>Organizations</a>
        <a href={links.users(apiKey)}>Users</a>
        <a href={links.crdtList(apiKey)}>Live documents</a>
        <a href={links.webhooks(apiKey)}>Webhooks</a>
        <a href={`/requests?caller=${encodeURIComponent(apiKey)}`}>Its requests</a>
      </PageHead>
      <Status said={said} id="workspace-status" />
      <Section title="State" id="key-state" actions={<KeyStateButton k={key} tell={tell} id="key-state-toggle" />}>
        <p>
          <KeyStateBadge k={key} />{' '}
          <span class="muted" id="key-state-note">
            {key?.disabled
              ? 'Every operation and websocket with this key is refused (PERMISSION_DENIED) until it is enabled again; its data, tokens and settings are kept.'
              : 'Operations and websockets with this key are served.'}
          </span>
        </p>
      </Section>
      <Section
        title="Permission provider"
        id="key-provider"
        actions={
          <button
            type="button"
            class="small"
            id="provider-reload"
            onClick={() => {
              usage.reload();
              provider.reload();
            }}
          >
            Refresh
          </button>
        }
      >
        <ErrorBox error={provider.error} />
        <Facts
          id="provider-mode"
          items={[
            [
              'Mode',
              provider.data?.usePermissionProvider ? (
                <Badge tone="warn">on: the provider decides who may open what</Badge>
              ) : (
                <Badge tone="muted">off: Hearth's own memberships decide</Badge>
              ),
            ],
            ['Provider URL', provider.data?.permissionProviderConfig.permissionProviderUrl || '—'],
          ]}
        />
        {(usage.data?.providerDecisions.length ?? 0) === 0 ? (
          <p class="muted" id="provider-decisions-empty">
            No decision asked of a provider on this instance yet.
          </p>
        ) : (
          <div class="table-wrap">
            <table id="provider-decisions">
              <caption class="visually-hidden">The permission provider's newest decisions on this instance, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">User</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {usage.data?.providerDecisions.map((d) => (
                  <tr key={`${d.at}-${d.userId}-${d.type}-${d.resourceId}`} data-user={d.userId} data-access={String(d.access)}>
                    <td>
                      <Since at={d.at} />
                    </td>
                    <td class="id">{d.userId}</td>
                    <td>
                      {d.type}{' '}
                      <span class="id">
                        {d.organizationId}/{d.resourceId}
                      </span>
                    </td>
                    <td>{d.access ? <Badge tone="ok">granted ({d.accessRole})</Badge> : <Badge tone="bad">denied</Badge>}</td>
                    <td class="reason">{d.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title="Usage" id="key-usage">
        <Facts
          items={Object.entries(usage.data?.counts ?? {}).map(([k, v]) => [k.replace(/_/g, ' '), <span id={`usage-${k}`}>{v.toLocaleString('en-US')}</span>])}
        />
      </Section>
      <div class="split">
        <Section title="Configuration" id="key-configuration">
          <ErrorBox error={config.error} />
          <dl class="facts" id="key-config">
            {Object.entries(config.data ?? {}).map(([k, v]) => (
              <>
                <dt>{k}</dt>
                <dd id={`config-${k}`}>{shown(v)}</dd>
              </>
            ))}
          </dl>
        </Section>
        <div>
          <Section title="Settings" id="key-settings">
            {configSchema && (
              <SchemaForm
                schema={{
                  ...configSchema,
                  properties: Object.fromEntries(Object.entries(configSchema.properties ?? {}).filter(([k]) => k !== 'aiModelApiKey')),
                }}
                value={settings}
                onChange={setSettings}
              />
            )}
            <button type="button" class="primary" id="save-settings" onClick={() => void saveSettings()}>
              Save settings
            </button>
          </Section>
          <Section title="Allowed domains" id="domains">
            <Facts items={[['Now', shown(config.data?.allowedDomains ?? [])]]} />
            <form class="row" onSubmit={(e) => void domains('add', e)}>
              <label>
                <span>Domains (comma-separated)</span>
                <input name="domains" required placeholder="app.example.com, *.example.com" />
              </label>
              <button type="submit">Add</button>
            </form>
            <form class="row" onSubmit={(e) => void domains('delete', e)}>
              <label>
                <span>Remove</span>
                <input name="domains" required />
              </label>
              <button type="submit">Remove</button>
            </form>
          </Section>
          <Section title="AI provider keys (write-only)" id="ai-keys">
            <form id="ai-key" class="row" onSubmit={(e) => void aiKey(e)}>
              <label>
                <span>Provider</span>
                <select name="provider">
                  <option value="openai">OpenAI</option>
                  <option value="anthropic">Anthropic</option>
                  <option value="gemini">Gemini</option>
                </select>
              </label>
              <label>
                <span>Key</span>
                <input name="customerApiKey" type="password" autocomplete="off" />
              </label>
              <label>
                <span>Base URL</span>
                <input name="baseUrl" placeholder="the provider's own" />
              </label>
              <button type="submit">Save</button>
            </form>
          </Section>
          <Section title="E-mail" id="email-config">
            {emailSchema && <SchemaForm schema={emailSchema} value={email} onChange={setEmail} />}
            <button type="button" onClick={() => void saveEmail()}>
              Save e-mail settings
            </button>
          </Section>
        </div>
      </div>
    </>
  );
}
