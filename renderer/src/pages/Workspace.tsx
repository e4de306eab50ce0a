// The workspace: its facts, its API keys (create, rename, show and rotate tokens, disable and enable) and, for the default
// workspace's session, every workspace's plan and production-key limits.
import { useState } from 'preact/hooks';
import type { ApiKeyView, WorkspaceSettings } from '../../../shared/admin.ts';
import { KeyStateBadge, KeyStateButton } from '../components/KeyState.tsx';
import { Facts, PageHead, Section, Status, type Said } from '../components/ui.tsx';
import { api, dataOf } from '../lib/api.ts';
import { useSession } from '../lib/keys.ts';
import { links } from '../lib/links.ts';
import { useLoad } from '../lib/use.ts';

interface WorkspaceInfo {
  id: string;
  name: string | null;
  plan: string;
  owner: { email: string };
}

export default function Workspace() {
  const session = useSession();
  const [said, setSaid] = useState<Said | null>(null);
  const tell = (ok: boolean, text: string) => setSaid({ text, tone: ok ? 'ok' : 'bad' });
  const info = useLoad(async () => dataOf<WorkspaceInfo>(await api.call('/v2/workspace/get', '', {})), []);
  const keys = useLoad(async () => dataOf<ApiKeyView[]>(await api.call('/v2/workspace/apikeys/get', '', {})), []);
  const plans = useLoad(() => api.workspaces().catch(() => null), []);
  const [tokens, setTokens] = useState<Record<string, string[]>>({});

  const create = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const answer = await api.call('/v2/workspace/apikey/create', '', {
      ownerEmail: info.data?.owner.email ?? '',
      type: String(form.get('type')) as 'testing' | 'production',
      apiKeyName: String(form.get('apiKeyName') ?? ''),
      createAuthToken: true,
    });
    tell(
      answer.status === 200,
      answer.status === 200
        ? `API key ${(answer.body.result?.data as { apiKey: string } | undefined)?.apiKey} created.`
        : (answer.body.error?.message ?? 'Create failed.'),
    );
    if (answer.status === 200) {
      keys.reload();
      await session.reloadKeys();
    }
  };
  const rename = async (k: ApiKeyView) => {
    const name = prompt('New name', k.apiKeyName ?? '');
    if (!name) return;
    const answer = await api.call('/v2/workspace/apikey/update', '', { apiKey: k.apiKey, apiKeyName: name });
    if (answer.status === 200) {
      keys.reload();
      await session.reloadKeys();
    } else tell(false, answer.body.error?.message ?? 'Rename failed.');
  };
  const show = async (apiKey: string) => {
    const answer = await api.call('/v2/workspace/authtokens/get', '', { apiKey });
    setTokens((t) => ({
      ...t,
      [apiKey]: ((answer.body.result?.data as { authTokens?: Array<{ token: string }> } | undefined)?.authTokens ?? []).map((x) => x.token),
    }));
  };
  const rotate = async (apiKey: string) => {
    if (!confirm('Replace the auth token? The old one stops working at once.')) return;
    const answer = await api.call('/v2/workspace/authtoken/reset', '', { apiKey });
    tell(answer.status === 200, answer.status === 200 ? 'Auth token replaced.' : (answer.body.error?.message ?? 'Reset failed.'));
    if (tokens[apiKey]) await show(apiKey);
  };
  // the workspace's own auth token (issue 42): this session stays signed in, scripts need the new value
  const [workspaceToken, setWorkspaceToken] = useState<string | null>(null);
  const rotateWorkspaceToken = async () => {
    if (!confirm('Replace the workspace auth token? The old one stops working at once, on every instance.')) return;
    const answer = await api.call('/v2/workspace/workspaceauthtoken/rotate', '', {});
    const token = (answer.body.result?.data as { authToken?: string } | undefined)?.authToken;
    tell(answer.status === 200, answer.status === 200 ? 'Workspace auth token replaced.' : (answer.body.error?.message ?? 'Rotation failed.'));
    if (token) setWorkspaceToken(token);
  };

  return (
    <>
      <PageHead title="Workspace" />
      <Status said={said} id="workspace-status" />
      <Section title="This workspace" id="workspace-info">
        <Facts
          items={[
            ['Id', <code>{info.data?.id ?? session.workspaceId}</code>],
            ['Name', info.data?.name ?? ''],
            ['Owner', info.data?.owner.email ?? ''],
            ['Plan', info.data?.plan ?? ''],
          ]}
        />
        <p class="row">
          <button type="button" id="workspace-token-rotate" class="small" onClick={() => void rotateWorkspaceToken()}>
            Rotate workspace auth token
          </button>
          {workspaceToken ? <code id="workspace-token">{workspaceToken}</code> : null}
        </p>
      </Section>
      <Section title="API keys" id="keys">
        <table id="key-list">
          <caption class="visually-hidden">API keys of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">API key</th>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">State</th>
              <th scope="col">Auth tokens</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {(keys.data ?? []).map((k) => (
              <tr key={k.apiKey} data-key={k.apiKey}>
                <td class="id">
                  <a href={links.key(k.apiKey)}>{k.apiKey}</a>
                </td>
                <td>{k.apiKeyName ?? ''}</td>
                <td>{k.type}</td>
                <td>
                  <KeyStateBadge k={session.keys.find((s) => s.apiKey === k.apiKey)} />
                </td>
                <td>
                  {tokens[k.apiKey] ? (
                    tokens[k.apiKey]?.map((t) => <code key={t}>{t}</code>)
                  ) : (
                    <button type="button" class="small" onClick={() => void show(k.apiKey)}>
                      Show
                    </button>
                  )}
                </td>
                <td>
                  <button type="button" class="small" onClick={() => void rename(k)}>
                    Rename
                  </button>{' '}
                  <button type="button" class="small" onClick={() => void rotate(k.apiKey)}>
                    Rotate token
                  </button>{' '}
                  <KeyStateButton k={session.keys.find((s) => s.apiKey === k.apiKey)} tell={tell} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form id="key-create" class="row" onSubmit={(e) => void create(e)}>
          <label>
            <span>Name</span>
            <input name="apiKeyName" required />
          </label>
          <label>
            <span>Type</span>
            <select name="type">
              <option value="testing">testing</option>
              <option value="production">production</option>
            </select>
          </label>
          <button type="submit" class="primary">
            Create API key
          </button>
        </form>
      </Section>
      {plans.data ? (
        <Plans items={plans.data.items} tell={tell} />
      ) : (
        <p class="muted">
          Plans and production-key settings are managed from the default workspace's session, or with the CLI (<code>npx hearth workspace settings</code>).
        </p>
      )}
    </>
  );
}

function Plans({ items, tell }: { items: WorkspaceSettings[]; tell: (ok: boolean, text: string) => void }) {
  return (
    <Section title="Plans and production keys (operator)" id="plans">
      <table id="plan-list">
        <caption class="visually-hidden">Every workspace's plan</caption>
        <thead>
          <tr>
            <th scope="col">Workspace</th>
            <th scope="col">Owner</th>
            <th scope="col">Plan</th>
            <th scope="col">Self-serve production keys</th>
            <th scope="col">Max production keys</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {items.map((w) => (
            <PlanRow key={w.workspaceId} w={w} tell={tell} />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function PlanRow({ w, tell }: { w: WorkspaceSettings; tell: (ok: boolean, text: string) => void }) {
  const [plan, setPlan] = useState(w.plan);
  const [selfServe, setSelfServe] = useState(w.selfServeProduction);
  const [max, setMax] = useState(String(w.maxProductionKeys));
  const label = `${w.name || w.workspaceId}${w.isDefault ? ' (default)' : ''}`;
  return (
    <tr data-workspace={w.workspaceId}>
      <td>{label}</td>
      <td>{w.ownerEmail}</td>
      <td>
        <select name="plan" aria-label={`Plan of ${label}`} value={plan} onChange={(e) => setPlan((e.target as HTMLSelectElement).value)}>
          <option>free</option>
          <option>paid</option>
        </select>
      </td>
      <td>
        <input
          type="checkbox"
          name="selfServeProduction"
          aria-label={`Self-serve production keys of ${label}`}
          checked={selfServe}
          onChange={(e) => setSelfServe((e.target as HTMLInputElement).checked)}
        />
      </td>
      <td>
        <input
          type="number"
          name="maxProductionKeys"
          aria-label={`Max production keys of ${label}`}
          min="0"
          max="1000"
          value={max}
          onInput={(e) => setMax((e.target as HTMLInputElement).value)}
        />
      </td>
      <td>
        <button
          type="button"
          onClick={async () => {
            try {
              await api.saveWorkspaceSettings({ workspaceId: w.workspaceId, plan, selfServeProduction: selfServe, maxProductionKeys: Number(max) });
              tell(true, `Settings of ${w.name || w.workspaceId} saved.`);
            } catch (e) {
              tell(false, e instanceof Error ? e.message : String(e));
            }
          }}
        >
          Save
        </button>
      </td>
    </tr>
  );
}
