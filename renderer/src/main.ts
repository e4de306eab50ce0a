import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import type { CallSummary } from '../../shared/admin.ts';

/**
 * The admin UI: overview (health, credentials, counts), a live request monitor (server-sent events), and the
 * operation list. It talks to /admin/api with the session cookie and the x-hearth-ui header.
 */
interface OpenApi {
  paths: Record<string, { post: { summary: string; security: Array<Record<string, unknown>>; requestBody: { content: { 'application/json': { schema: { properties: { data: unknown } } } } } } }>;
}
const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const admin = (path: string, init: RequestInit = {}) => fetch(`/admin/api${path}`, { ...init, headers: { 'x-hearth-ui': '1', 'content-type': 'application/json', ...init.headers } });

function cell(text: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function authOf(security: Array<Record<string, unknown>>): string {
  const first = security[0];
  if (!first) return 'public';
  return 'workspaceId' in first ? 'workspace' : 'API key';
}

function showTab(name: string) {
  for (const page of document.querySelectorAll<HTMLElement>('[data-page]')) page.hidden = page.dataset.page !== name;
  for (const link of document.querySelectorAll<HTMLElement>('[data-tab]')) link.classList.toggle('active', link.dataset.tab === name);
}

async function health() {
  byId('base-url').textContent = location.origin;
  try {
    const ping = await fetch('/v2/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
    const body = (await ping.json()) as { result?: { message: string; data: { version: string } } };
    byId('health').textContent = body.result?.message === 'pong' ? 'healthy' : 'unexpected answer';
    byId('health').className = body.result?.message === 'pong' ? 'ok' : 'bad';
    byId('version').textContent = body.result ? `v${body.result.data.version}` : '';
  } catch (error) {
    byId('health').textContent = `unreachable: ${String(error)}`;
    byId('health').className = 'bad';
  }
}

async function operationsList() {
  const doc = (await (await fetch('/openapi.json')).json()) as OpenApi;
  void explorer(doc);
  const paths = Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b));
  byId('operations').textContent = String(paths.length);
  const rows = paths.map(([path, item]) => {
    const tr = document.createElement('tr');
    tr.append(cell(path), cell(authOf(item.post.security)), cell(item.post.summary));
    return tr;
  });
  byId('operation-list').querySelector('tbody')?.replaceChildren(...rows);
}

async function overview() {
  const res = await admin('/overview');
  if (!res.ok) return;
  const o = (await res.json()) as { dataDir: string; credentials: Record<string, string> | null; counts: Record<string, number> };
  byId('data-dir').textContent = o.dataDir;
  const creds = byId('credentials');
  creds.replaceChildren();
  for (const [name, value] of Object.entries(o.credentials ?? {})) {
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    const code = document.createElement('code');
    code.textContent = value;
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.textContent = 'Copy';
    copy.dataset.copy = name;
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(value);
        copy.textContent = 'Copied';
      } catch {
        copy.textContent = 'Copy failed';
      }
    });
    dd.append(code, ' ', copy);
    creds.append(dt, dd);
  }
  if (!o.credentials) creds.textContent = 'This workspace is not the default one: its credentials are not shown here.';
  const counts = byId('counts');
  counts.replaceChildren(
    ...Object.entries(o.counts).flatMap(([name, n]) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = String(n);
      dd.id = `count-${name}`;
      return [dt, dd];
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------

const calls: CallSummary[] = [];

function visible(c: CallSummary): boolean {
  const path = byId<HTMLInputElement>('filter-path').value.trim();
  const status = byId<HTMLSelectElement>('filter-status').value;
  return (!path || c.path.includes(path)) && (!status || String(c.status).startsWith(status));
}

function requestRow(c: CallSummary): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.id = String(c.id);
  tr.className = c.status >= 500 ? 'bad' : c.status >= 400 ? 'warn' : '';
  tr.append(cell(new Date(c.at).toLocaleTimeString()), cell(c.path), cell(String(c.status)), cell(c.durationMs.toFixed(1)), cell(c.caller ?? ''));
  tr.addEventListener('click', () => void showCall(c.id));
  return tr;
}

function renderRequests() {
  const rows = calls.filter(visible).slice(-200).reverse().map(requestRow);
  byId('request-list').querySelector('tbody')?.replaceChildren(...rows);
}

const pretty = (text: string | undefined) => {
  if (text === undefined || text === '') return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

async function showCall(id: number) {
  const res = await admin(`/requests/${id}`);
  const detail = byId('request-detail');
  detail.hidden = false;
  if (!res.ok) {
    byId('request-title').textContent = 'This call is no longer in the monitor.';
    return;
  }
  const c = (await res.json()) as CallSummary & { request?: string; response?: string };
  byId('request-title').textContent = `${c.method} ${c.path} → ${c.status} (${c.durationMs} ms, ${c.requestId})`;
  byId('request-note').textContent = c.request === undefined ? 'Bodies are kept only for calls made while a monitor is open.' : 'Secret fields are shown as [redacted].';
  byId('request-body').textContent = pretty(c.request);
  byId('response-body').textContent = pretty(c.response);
}

async function requests() {
  const res = await admin('/requests');
  if (res.ok) calls.push(...((await res.json()) as { items: CallSummary[] }).items);
  renderRequests();
  const live = new EventSource('/admin/api/requests/stream');
  live.onopen = () => {
    byId('live').textContent = 'live';
  };
  live.onerror = () => {
    byId('live').textContent = 'reconnecting…';
  };
  live.onmessage = (message) => {
    const c = JSON.parse(message.data as string) as CallSummary;
    calls.push(c);
    if (calls.length > 500) calls.splice(0, calls.length - 500);
    if (visible(c)) byId('request-list').querySelector('tbody')?.prepend(requestRow(c));
  };
  byId('filter-path').addEventListener('input', renderRequests);
  byId('filter-status').addEventListener('change', renderRequests);
}

// ---------------------------------------------------------------------------------------------------------
// API explorer
// ---------------------------------------------------------------------------------------------------------

async function explorer(doc: OpenApi) {
  const select = byId<HTMLSelectElement>('explorer-op');
  const paths = Object.keys(doc.paths).sort();
  select.replaceChildren(
    ...paths.map((path) => {
      const option = document.createElement('option');
      option.value = option.textContent = path;
      return option;
    }),
  );
  const keySelect = byId<HTMLSelectElement>('explorer-key');
  await fillKeys(keySelect);
  const describe = () => {
    const item = doc.paths[select.value]?.post;
    if (!item) return;
    byId('explorer-summary').textContent = `${item.summary} (${authOf(item.security)})`;
    byId('explorer-schema').textContent = JSON.stringify(item.requestBody.content['application/json'].schema.properties.data, null, 2);
    keySelect.disabled = authOf(item.security) !== 'API key';
  };
  select.addEventListener('change', describe);
  const wanted = new URLSearchParams(location.hash.split('?')[1] ?? '').get('op');
  if (wanted && doc.paths[wanted]) select.value = wanted;
  describe();
  byId('explorer-send').addEventListener('click', async () => {
    const status = byId('explorer-status');
    let data: unknown;
    try {
      data = JSON.parse(byId<HTMLTextAreaElement>('explorer-data').value || '{}');
    } catch (error) {
      status.textContent = `data is not JSON: ${String(error)}`;
      status.className = 'bad';
      return;
    }
    const res = await admin('/call', { method: 'POST', body: JSON.stringify({ path: select.value, apiKey: keySelect.value, data }) });
    const answer = (await res.json()) as { status?: number; body?: unknown; error?: { message: string } };
    if (!res.ok || answer.status === undefined) {
      status.textContent = answer.error?.message ?? `failed (${res.status})`;
      status.className = 'bad';
      return;
    }
    status.textContent = `HTTP ${answer.status}`;
    status.className = answer.status < 300 ? 'ok' : 'bad';
    byId('explorer-result').textContent = JSON.stringify(answer.body, null, 2);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Data browser: organizations → folders and documents → who can open a document, and why
// ---------------------------------------------------------------------------------------------------------

const browse = async <T>(what: string, params: Record<string, string>): Promise<T | null> => {
  const res = await admin(`/browse/${what}?${new URLSearchParams(params).toString()}`);
  return res.ok ? ((await res.json()) as T) : null;
};

let browsing: { apiKey: string; organizationId: string; documentId: string } | null = null;

async function showAccess() {
  if (!browsing?.documentId) return;
  const asked = byId<HTMLInputElement>('access-user').value.trim();
  const answer = await browse<{ users: Array<{ userId: string; name: string | null; access: boolean; accessRole: string | null; reasons: string[] }> }>('access', { ...browsing, ...(asked ? { userId: asked } : {}) });
  byId('access-title').textContent = `Who can open ${browsing.documentId}`;
  const rows = (answer?.users ?? []).map((u) => {
    const tr = document.createElement('tr');
    tr.dataset.user = u.userId;
    tr.className = u.access ? '' : 'bad';
    const why = document.createElement('td');
    const list = document.createElement('ul');
    list.append(...u.reasons.map((r) => Object.assign(document.createElement('li'), { textContent: r })));
    why.append(list);
    tr.append(cell(u.name ? `${u.name} (${u.userId})` : u.userId), cell(u.access ? (u.accessRole ?? 'yes') : 'no access'), why);
    return tr;
  });
  byId('access-list').querySelector('tbody')?.replaceChildren(...rows);
}

async function showOrganization(apiKey: string, organizationId: string) {
  const org = await browse<{
    folders: Array<{ id: string; name: string; parentId: string; accessType: string }>;
    documents: Array<{ id: string; name: string; folderId: string | null; accessType: string; disabled: boolean }>;
    members: Array<{ userId: string; level: string; resourceId: string; accessRole: string; expiresAt: number | null }>;
    groups: Array<{ id: string; name: string; userIds: string[] }>;
  }>('organization', { apiKey, organizationId });
  if (!org) return;
  browsing = { apiKey, organizationId, documentId: '' };
  byId('tree-title').textContent = `Folders and documents of ${organizationId}`;
  const docItem = (d: (typeof org.documents)[number]) => {
    const li = document.createElement('li');
    const b = button(`${d.name || d.id}`, async () => {
      if (browsing) browsing.documentId = d.id;
      await showAccess();
    });
    b.dataset.document = d.id;
    li.append(b, ` ${d.accessType}${d.disabled ? ', disabled' : ''}`);
    return li;
  };
  const folderItem = (f: (typeof org.folders)[number]): HTMLLIElement => {
    const li = document.createElement('li');
    li.append(Object.assign(document.createElement('strong'), { textContent: `${f.name || f.id}/` }), ` ${f.accessType}`);
    const children = document.createElement('ul');
    children.append(...org.folders.filter((c) => c.parentId === f.id).map(folderItem), ...org.documents.filter((d) => d.folderId === f.id).map(docItem));
    li.append(children);
    return li;
  };
  const folderIds = new Set(org.folders.map((f) => f.id));
  byId('doc-tree').replaceChildren(...org.folders.filter((f) => !folderIds.has(f.parentId)).map(folderItem), ...org.documents.filter((d) => !d.folderId || !folderIds.has(d.folderId)).map(docItem));
  byId('group-list')
    .querySelector('tbody')
    ?.replaceChildren(
      ...org.groups.map((g) => {
        const tr = document.createElement('tr');
        tr.append(cell(g.id), cell(g.name), cell(g.userIds.join(', ')));
        return tr;
      }),
    );
  byId('member-list')
    .querySelector('tbody')
    ?.replaceChildren(
      ...org.members.map((m) => {
        const tr = document.createElement('tr');
        tr.append(cell(m.userId), cell(m.level), cell(m.resourceId), cell(m.accessRole), cell(m.expiresAt ? new Date(m.expiresAt).toLocaleString() : 'never'));
        return tr;
      }),
    );
}

async function dataPage() {
  const select = byId<HTMLSelectElement>('data-key');
  await fillKeys(select);
  const render = async () => {
    const orgs = await browse<{ items: Array<{ id: string; name: string; disabled: boolean }> }>('organizations', { apiKey: select.value });
    byId('org-list').replaceChildren(
      ...(orgs?.items ?? []).map((o) => {
        const li = document.createElement('li');
        const b = button(`${o.name || o.id}${o.disabled ? ' (disabled)' : ''}`, () => showOrganization(select.value, o.id));
        b.dataset.organization = o.id;
        li.append(b);
        return li;
      }),
    );
  };
  select.addEventListener('change', () => void render());
  byId('access-user').addEventListener('change', () => void showAccess());
  await render();
}

// ---------------------------------------------------------------------------------------------------------
// CRDT inspector: the stored documents, and one opened live, read-only, over y-websocket
// ---------------------------------------------------------------------------------------------------------

interface CrdtRow {
  apiKey: string;
  organizationId: string;
  documentId: string;
  editorId: string;
  type: 'text' | 'map' | 'array' | 'xml';
  contentKey: string;
  updateCount: number;
  snapshotBytes: number;
  compactedAt: number | null;
  updatedAt: number;
  lastUpdatedBy: string | null;
  connections: number;
}

let viewing: { provider: WebsocketProvider; doc: Y.Doc } | null = null;

function contentOf(doc: Y.Doc, row: CrdtRow): string {
  if (row.type === 'text') return doc.getText(row.contentKey).toString();
  if (row.type === 'map') return JSON.stringify(doc.getMap(row.contentKey).toJSON(), null, 2);
  if (row.type === 'array') return JSON.stringify(doc.getArray(row.contentKey).toJSON(), null, 2);
  return doc.getXmlFragment(row.contentKey).toString();
}

async function openDocument(row: CrdtRow) {
  viewing?.provider.destroy();
  viewing?.doc.destroy();
  const res = await admin('/crdt/ticket', { method: 'POST', body: JSON.stringify({ apiKey: row.apiKey, organizationId: row.organizationId, documentId: row.documentId, editorId: row.editorId }) });
  byId('crdt-view').hidden = false;
  byId('crdt-title').textContent = `${row.organizationId} / ${row.documentId} / ${row.editorId} (${row.type}, ${row.contentKey})`;
  if (!res.ok) {
    byId('crdt-state').textContent = ((await res.json()) as { error?: { message: string } }).error?.message ?? 'Could not open the document.';
    return;
  }
  const { ticket } = (await res.json()) as { ticket: string };
  const doc = new Y.Doc();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/yjs`;
  const room = [row.organizationId, row.documentId, row.editorId].map(encodeURIComponent).join('/');
  const provider = new WebsocketProvider(url, room, doc, { params: { apiKey: row.apiKey, ticket }, disableBc: true });
  viewing = { provider, doc };
  const render = () => {
    byId('crdt-content').textContent = contentOf(doc, row);
  };
  provider.on('status', ({ status }: { status: string }) => {
    byId('crdt-state').textContent = status === 'connected' ? 'live (read-only)' : status;
  });
  doc.on('update', render);
  render();
}

async function documentsPage() {
  const res = await admin('/crdt');
  if (!res.ok) return;
  const { items } = (await res.json()) as { items: CrdtRow[] };
  const rows = items.map((row) => {
    const tr = document.createElement('tr');
    tr.dataset.doc = `${row.organizationId}/${row.documentId}/${row.editorId}`;
    tr.append(
      cell(row.organizationId),
      cell(row.documentId),
      cell(row.editorId),
      cell(row.type),
      cell(String(row.updateCount)),
      cell(`${row.snapshotBytes} B`),
      cell(row.compactedAt ? new Date(row.compactedAt).toLocaleString() : 'never'),
      cell(String(row.connections)),
      cell(row.lastUpdatedBy ?? ''),
    );
    tr.addEventListener('click', () => void openDocument(row));
    return tr;
  });
  byId('crdt-list').querySelector('tbody')?.replaceChildren(...rows);
}

// ---------------------------------------------------------------------------------------------------------
// Workspace: API keys, tokens, configuration, AI provider keys (all through /admin/api/call)
// ---------------------------------------------------------------------------------------------------------

const say = (text: string, ok = true) => {
  const status = byId('workspace-status');
  status.textContent = text;
  status.className = ok ? 'ok' : 'bad';
};

async function keyConfig(apiKey: string) {
  const res = await callOp('/v2/workspace/apikeyconfig/get', apiKey, {});
  const data = (res.body.result?.data ?? {}) as Record<string, unknown>;
  const dl = byId('key-config');
  dl.replaceChildren(
    ...['type', 'allowedDomains', 'enablePrivateComments', 'requireJwtToken', 'requireAutoOrgUser', 'defaultDocumentAccessType', 'useWebhookService', 'useEmailService', 'aiModelApiKey'].flatMap((name) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.id = `config-${name}`;
      const value = data[name];
      dd.textContent = typeof value === 'object' ? JSON.stringify(value) : String(value);
      return [dt, dd];
    }),
  );
}

async function workspacePage() {
  const ws = await callOp('/v2/workspace/get', '', {});
  const info = ws.body.result?.data as { id: string; name: string; plan: string; owner: { email: string } } | undefined;
  byId('workspace-info').replaceChildren(
    ...Object.entries({ id: info?.id, name: info?.name, owner: info?.owner.email, plan: info?.plan }).flatMap(([name, value]) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = String(value ?? '');
      return [dt, dd];
    }),
  );
  const keys = await callOp('/v2/workspace/apikeys/get', '', {});
  const list = (keys.body.result?.data ?? []) as Array<{ apiKey: string; apiKeyName: string; type: string }>;
  const rows = list.map((k) => {
    const tr = document.createElement('tr');
    tr.dataset.key = k.apiKey;
    const tokens = document.createElement('td');
    tokens.append(
      button('Show', async () => {
        const r = await callOp('/v2/workspace/authtokens/get', '', { apiKey: k.apiKey });
        const found = (r.body.result?.data?.authTokens ?? []) as Array<{ token: string; name: string }>;
        tokens.replaceChildren(...found.map((t) => Object.assign(document.createElement('code'), { textContent: t.token, title: t.name })));
      }),
    );
    const actions = document.createElement('td');
    actions.append(
      button('Rename', async () => {
        const name = prompt('New name', k.apiKeyName);
        if (!name) return;
        const r = await callOp('/v2/workspace/apikey/update', '', { apiKey: k.apiKey, apiKeyName: name });
        if (r.status === 200) await workspacePage();
        else say(r.body.error?.message ?? 'Rename failed.', false);
      }),
      ' ',
      button('Reset token', async () => {
        if (!confirm('Replace the auth token? The old one stops working at once.')) return;
        const r = await callOp('/v2/workspace/authtoken/reset', '', { apiKey: k.apiKey });
        say(r.status === 200 ? 'Auth token replaced.' : (r.body.error?.message ?? 'Reset failed.'), r.status === 200);
      }),
    );
    tr.append(cell(k.apiKey), cell(k.apiKeyName), cell(k.type), tokens, actions);
    return tr;
  });
  byId('key-list').querySelector('tbody')?.replaceChildren(...rows);
  const select = byId<HTMLSelectElement>('config-key');
  const current = select.value;
  await fillKeys(select);
  if (current) select.value = current;
  if (select.value) await keyConfig(select.value);
  await plansTable();
}

async function plansTable() {
  const res = await admin('/workspaces');
  byId('plans').hidden = !res.ok;
  if (!res.ok) return;
  const { items } = (await res.json()) as { items: Array<{ workspaceId: string; name: string; ownerEmail: string; plan: string; selfServeProduction: boolean; maxProductionKeys: number; isDefault: boolean }> };
  const rows = items.map((w) => {
    const tr = document.createElement('tr');
    tr.dataset.workspace = w.workspaceId;
    const plan = document.createElement('select');
    plan.name = 'plan';
    plan.append(...['free', 'paid'].map((p) => Object.assign(document.createElement('option'), { value: p, textContent: p, selected: p === w.plan })));
    const selfServe = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'selfServeProduction', checked: w.selfServeProduction });
    const max = Object.assign(document.createElement('input'), { type: 'number', name: 'maxProductionKeys', min: '0', max: '1000', value: String(w.maxProductionKeys) });
    const save = button('Save', async () => {
      const r = await admin('/workspaces/settings', { method: 'POST', body: JSON.stringify({ workspaceId: w.workspaceId, plan: plan.value, selfServeProduction: selfServe.checked, maxProductionKeys: Number(max.value) }) });
      say(r.ok ? `Settings of ${w.name || w.workspaceId} saved.` : (((await r.json()) as { error?: { message: string } }).error?.message ?? 'Save failed.'), r.ok);
    });
    const td = (el: HTMLElement) => {
      const c = document.createElement('td');
      c.append(el);
      return c;
    };
    tr.append(cell(`${w.name || w.workspaceId}${w.isDefault ? ' (default)' : ''}`), cell(w.ownerEmail), td(plan), td(selfServe), td(max), td(save));
    return tr;
  });
  byId('plan-list').querySelector('tbody')?.replaceChildren(...rows);
}

function workspaceForms() {
  byId('config-key').addEventListener('change', () => void keyConfig(byId<HTMLSelectElement>('config-key').value));
  byId('key-create').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const ws = await callOp('/v2/workspace/get', '', {});
    const ownerEmail = (ws.body.result?.data as { owner: { email: string } } | undefined)?.owner.email;
    const r = await callOp('/v2/workspace/apikey/create', '', { ownerEmail, type: form.get('type'), apiKeyName: form.get('apiKeyName'), createAuthToken: true });
    say(r.status === 200 ? `API key ${r.body.result?.data?.apiKey} created.` : (r.body.error?.message ?? 'Create failed.'), r.status === 200);
    if (r.status === 200) await workspacePage();
  });
  byId('ai-key').addEventListener('submit', async (event) => {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const form = new FormData(formElement);
    const baseUrl = String(form.get('baseUrl') ?? '').trim();
    const entry = { provider: form.get('provider'), customerApiKey: String(form.get('customerApiKey') ?? ''), baseUrl: baseUrl || null };
    const apiKey = byId<HTMLSelectElement>('config-key').value;
    const r = await callOp('/v2/workspace/apikeyconfig/update', apiKey, { aiModelApiKey: [entry] });
    say(r.status === 200 ? `${String(entry.provider)} key saved.` : (r.body.error?.message ?? 'Save failed.'), r.status === 200);
    // the key is write-only: the field is cleared and the configuration shows only that one is configured
    (formElement.elements.namedItem('customerApiKey') as HTMLInputElement).value = '';
    await keyConfig(apiKey);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Feed: notifications, activity timeline, comments, recordings (played back), user-data export
// ---------------------------------------------------------------------------------------------------------

/** `{{name}}` / `{name}` placeholders filled from the template data (user objects by name or id). */
function fill(template: string | null | undefined, data: Record<string, unknown>): string {
  return (template ?? '').replace(/\{\{?(\w+)\}?\}/g, (_, key: string) => {
    const value = data[key];
    if (value && typeof value === 'object') return String((value as { name?: string; userId?: string }).name ?? (value as { userId?: string }).userId ?? '');
    return value === undefined ? '' : String(value);
  });
}

async function showFeed(form: HTMLFormElement) {
  const values: Record<string, string> = Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ''));
  const apiKey = byId<HTMLSelectElement>('feed-key').value;
  const where = { organizationId: values.organizationId, ...(values.documentId ? { documentId: values.documentId } : {}) };
  const [notifications, activities, annotations, recordings] = await Promise.all([
    // notifications are per document or per recipient (the operation needs one of them)
    values.documentId || values.userId ? callOp('/v2/notifications/get', apiKey, { ...where, ...(values.userId ? { userId: values.userId } : {}) }) : Promise.resolve<Envelope>({ status: 200, body: { result: { data: [] } } }),
    callOp('/v2/activities/get', apiKey, {
      ...where,
      ...(values.userId ? { userId: values.userId } : {}),
      ...(values.featureType ? { featureTypes: [values.featureType] } : {}),
      ...(values.actionType ? { actionTypes: values.actionType.split(',').map((a) => a.trim()).filter(Boolean) } : {}),
      ...(values.order ? { order: values.order } : {}),
    }),
    callOp('/v2/commentannotations/get', apiKey, where),
    callOp('/v2/recordings/get', apiKey, where),
  ]);
  const failure = [notifications, activities, annotations, recordings].find((r) => r.status !== 200);
  byId('feed-status').textContent = failure ? (failure.body.error?.message ?? 'Could not load the feed.') : '';
  const rowsOf = (id: string, rows: HTMLTableRowElement[]) => byId(id).querySelector('tbody')?.replaceChildren(...rows);
  const tr = (...cells: string[]) => {
    const row = document.createElement('tr');
    row.append(...cells.map(cell));
    return row;
  };
  type N = { timestamp: number; displayHeadlineMessageTemplate: string | null; displayHeadlineMessageTemplateData: Record<string, unknown>; actionUser?: unknown; displayBodyMessage: string | null; documentId?: string; metadata?: { documentId?: string } };
  rowsOf('notification-list', ((notifications.body.result?.data ?? []) as N[]).map((n) => tr(new Date(n.timestamp).toLocaleString(), fill(n.displayHeadlineMessageTemplate, { ...n.displayHeadlineMessageTemplateData, actionUser: n.actionUser }), n.displayBodyMessage ?? '', n.documentId ?? n.metadata?.documentId ?? '')));
  type A = { timestamp: number; featureType: string; actionType: string; actionUser: { userId: string; name?: string } | null; displayMessageTemplate: string | null; displayMessageTemplateData: Record<string, unknown> };
  rowsOf('activity-list', ((activities.body.result?.data ?? []) as A[]).map((a) => tr(new Date(a.timestamp).toLocaleString(), a.featureType, a.actionType, a.actionUser?.name ?? a.actionUser?.userId ?? '', fill(a.displayMessageTemplate, a.displayMessageTemplateData))));
  type C = { annotationId: string; documentId: string; status?: { id?: string; name?: string }; comments: Array<{ commentText: string | null; from: { userId: string; name?: string } }> };
  rowsOf('comment-list', ((annotations.body.result?.data ?? []) as C[]).map((c) => tr(c.annotationId, c.documentId, c.status?.name ?? c.status?.id ?? '', c.comments.map((x) => `${x.from.name ?? x.from.userId}: ${x.commentText ?? ''}`).join(' | '))));
  type R = { annotationId: string; displayName: string | null; recordedTime: { display: string }; attachments: Array<{ url: string; mimeType: string; name: string }> };
  byId('recording-list').replaceChildren(
    ...((recordings.body.result?.data ?? []) as R[]).map((r) => {
      const box = document.createElement('div');
      box.className = 'recording';
      box.dataset.recording = r.annotationId;
      box.append(Object.assign(document.createElement('p'), { textContent: `${r.displayName ?? r.annotationId} (${r.recordedTime.display})` }));
      for (const file of r.attachments) {
        const media = file.mimeType.startsWith('video/') ? document.createElement('video') : file.mimeType.startsWith('audio/') ? document.createElement('audio') : null;
        if (media) {
          media.controls = true;
          media.preload = 'metadata';
          media.src = file.url;
          box.append(media);
        } else {
          box.append(Object.assign(document.createElement('a'), { href: file.url, textContent: file.name }));
        }
      }
      return box;
    }),
  );
}

function feedPage() {
  void fillKeys(byId<HTMLSelectElement>('feed-key'));
  const form = byId<HTMLFormElement>('feed-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void showFeed(form);
  });
  byId('export-user').addEventListener('click', async () => {
    const values = new FormData(form);
    const organizationId = String(values.get('organizationId') ?? '').trim();
    const userId = String(values.get('userId') ?? '').trim();
    if (!organizationId || !userId) {
      byId('feed-status').textContent = 'Give an organization and a user to export their data.';
      return;
    }
    const apiKey = byId<HTMLSelectElement>('feed-key').value;
    const pages: unknown[] = [];
    let pageToken: string | null = null;
    do {
      const r = await callOp('/v2/users/data/get', apiKey, { organizationId, userId, ...(pageToken ? { pageToken } : {}) });
      if (r.status !== 200) {
        byId('feed-status').textContent = r.body.error?.message ?? 'Export failed.';
        return;
      }
      pages.push(r.body.result?.data);
      pageToken = (r.body.result?.nextPageToken as string | null | undefined) ?? null;
    } while (pageToken);
    const blob = new Blob([JSON.stringify(pages.length === 1 ? pages[0] : pages, null, 2)], { type: 'application/json' });
    const link = byId<HTMLAnchorElement>('export-link');
    link.href = URL.createObjectURL(blob);
    link.download = `user-data-${organizationId}-${userId}.json`;
    link.hidden = false;
    link.click();
  });
}

// ---------------------------------------------------------------------------------------------------------
// Mailbox
// ---------------------------------------------------------------------------------------------------------

async function mailbox() {
  const res = await admin('/mail');
  if (!res.ok) return;
  const { items } = (await res.json()) as { items: Array<{ id: string; kind: string; to: string; subject: string; status: string; lastError: string | null; createdAt: number }> };
  const rows = items.map((mail) => {
    const tr = document.createElement('tr');
    tr.dataset.mail = mail.id;
    tr.append(cell(new Date(mail.createdAt).toLocaleString()), cell(mail.to), cell(mail.subject), cell(mail.kind), cell(mail.lastError ? `${mail.status}: ${mail.lastError}` : mail.status));
    tr.addEventListener('click', async () => {
      const one = await admin(`/mail/${encodeURIComponent(mail.id)}`);
      if (!one.ok) return;
      const full = (await one.json()) as { subject: string; text: string; html: string };
      byId('mail-view').hidden = false;
      byId('mail-subject').textContent = full.subject;
      byId('mail-text').textContent = full.text;
      // the HTML version in a sandboxed frame: no scripts, no same-origin access
      byId<HTMLIFrameElement>('mail-html').srcdoc = full.html;
    });
    return tr;
  });
  byId('mail-list').querySelector('tbody')?.replaceChildren(...rows);
}

// ---------------------------------------------------------------------------------------------------------
// Webhooks (through /admin/api/call, as the chosen API key)
// ---------------------------------------------------------------------------------------------------------

interface Envelope {
  status: number;
  body: { result?: { data?: any } & Record<string, any>; error?: { status: string; message: string } };
}

async function callOp(path: string, apiKey: string, data: unknown): Promise<Envelope> {
  const res = await admin('/call', { method: 'POST', body: JSON.stringify({ path, apiKey, data }) });
  return (await res.json()) as Envelope;
}

function button(label: string, onClick: () => void | Promise<void>): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => void onClick());
  return b;
}

async function fillKeys(select: HTMLSelectElement) {
  const res = await admin('/keys');
  if (!res.ok) return;
  const { items } = (await res.json()) as { items: Array<{ apiKey: string; name: string; type: string }> };
  select.replaceChildren(
    ...items.map((k) => {
      const option = document.createElement('option');
      option.value = k.apiKey;
      option.textContent = `${k.name} (${k.type})`;
      return option;
    }),
  );
}

async function showAttempts(apiKey: string, endpointId: string) {
  const res = await callOp('/v2/workspace/advancedwebhook/attempts/list', apiKey, { endpointId, limit: 100 });
  byId('attempts').hidden = false;
  byId('attempts-title').textContent = `Attempts to ${endpointId}`;
  const attempts = (res.body.result?.data?.attempts ?? []) as Array<{ id: string; messageId: string; trigger: string; status: string; responseStatusCode: number | null; response: string; responseDurationMs: number; timestamp: string }>;
  const rows = attempts.map((a) => {
    const tr = document.createElement('tr');
    tr.dataset.message = a.messageId;
    tr.className = a.status === 'succeeded' ? '' : 'bad';
    const actions = document.createElement('td');
    actions.append(
      button('Replay', async () => {
        const r = await callOp('/v2/workspace/advancedwebhook/messages/replay', apiKey, { messageId: a.messageId, endpointId });
        byId('webhooks-status').textContent = r.status === 200 ? `Replay of ${a.messageId} started.` : (r.body.error?.message ?? 'Replay failed.');
      }),
    );
    tr.append(cell(new Date(a.timestamp).toLocaleTimeString()), cell(a.messageId), cell(a.trigger), cell(a.status), cell(a.responseStatusCode === null ? '—' : String(a.responseStatusCode)), cell(String(a.responseDurationMs)), actions);
    tr.addEventListener('click', async (event) => {
      if ((event.target as HTMLElement).tagName === 'BUTTON') return;
      byId('attempt-response').textContent = a.response || '(empty)';
      const sent = await admin(`/webhooks/delivery?${new URLSearchParams({ apiKey, messageId: a.messageId, endpointId })}`);
      const d = sent.ok ? ((await sent.json()) as { method: string; url: string; body: string; headers: string[] }) : null;
      byId('attempt-request').textContent = d ? `${d.method} ${d.url}\n${d.headers.join('\n')}\n\n${pretty(d.body)}` : 'The delivery is no longer stored.';
    });
    return tr;
  });
  byId('attempt-list').querySelector('tbody')?.replaceChildren(...rows);
}

async function webhooksPage() {
  const select = byId<HTMLSelectElement>('webhooks-key');
  await fillKeys(select);
  const render = async () => {
    const apiKey = select.value;
    if (!apiKey) return;
    const config = await callOp('/v2/workspace/advancedwebhookconfig/get', apiKey, {});
    const dl = byId('webhooks-config');
    dl.replaceChildren();
    const c = config.body.result?.data as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(c ?? { state: config.body.error?.message ?? 'off' })) {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.textContent = typeof value === 'object' ? JSON.stringify(value) : String(value);
      dl.append(dt, dd);
    }
    const endpoints = await callOp('/v2/workspace/advancedwebhook/endpoints/get', apiKey, { limit: 250 });
    const list = (endpoints.body.result?.data?.endpoints ?? []) as Array<{ id: string; url: string; disabled: boolean; disabledReason: string | null }>;
    const rows = list.map((ep) => {
      const tr = document.createElement('tr');
      tr.dataset.endpoint = ep.id;
      const secret = document.createElement('td');
      secret.append(
        button('Reveal', async () => {
          const r = await callOp('/v2/workspace/advancedwebhook/endpoints/secret/get', apiKey, { endpointId: ep.id });
          const code = document.createElement('code');
          code.textContent = r.body.result?.data?.secret ?? r.body.error?.message ?? '';
          secret.replaceChildren(code);
        }),
      );
      const actions = document.createElement('td');
      actions.append(
        button('Attempts', () => showAttempts(apiKey, ep.id)),
        ' ',
        button('Recover last 24 h', async () => {
          const r = await callOp('/v2/workspace/advancedwebhook/endpoints/recover', apiKey, { endpointId: ep.id, since: Date.now() - 24 * 3600 * 1000 });
          byId('webhooks-status').textContent = r.status === 200 ? `${r.body.result?.data?.recovered ?? 0} failed deliveries sent again.` : (r.body.error?.message ?? 'Recover failed.');
        }),
      );
      tr.append(cell(ep.id), cell(ep.url), cell(ep.disabled ? `disabled: ${ep.disabledReason ?? ''}` : 'enabled'), secret, actions);
      return tr;
    });
    byId('endpoint-list').querySelector('tbody')?.replaceChildren(...rows);
  };
  select.addEventListener('change', () => void render());
  byId('webhooks-refresh').addEventListener('click', () => void render());
  await render();
}

// ---------------------------------------------------------------------------------------------------------
// Session
// ---------------------------------------------------------------------------------------------------------

async function signedIn(): Promise<boolean> {
  const res = await admin('/session');
  return res.ok && ((await res.json()) as { signedIn: boolean }).signedIn;
}

async function start() {
  byId('tabs').hidden = false;
  byId('sign-out').hidden = false;
  byId('sign-in').hidden = true;
  showTab(location.hash.slice(1).split('?')[0] || 'overview');
  byId('crdt-refresh').addEventListener('click', () => void documentsPage());
  byId('mail-refresh').addEventListener('click', () => void mailbox());
  workspaceForms();
  feedPage();
  await Promise.all([overview(), operationsList(), requests(), webhooksPage(), documentsPage(), mailbox(), workspacePage(), dataPage()]);
}

async function main() {
  void health();
  window.addEventListener('hashchange', () => showTab(location.hash.slice(1).split('?')[0] || 'overview'));
  byId('sign-out').addEventListener('click', async () => {
    await admin('/session', { method: 'DELETE' });
    location.reload();
  });
  if (await signedIn()) {
    await start();
    return;
  }
  for (const page of document.querySelectorAll<HTMLElement>('[data-page]')) page.hidden = true;
  byId('sign-in').hidden = false;
  byId('sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const res = await admin('/session', { method: 'POST', body: JSON.stringify({ workspaceId: form.get('workspaceId'), workspaceAuthToken: form.get('workspaceAuthToken') }) });
    if (res.ok) await start();
    else byId('sign-in-error').textContent = ((await res.json()) as { error?: { message: string } }).error?.message ?? 'Sign-in failed.';
  });
}

void main();
