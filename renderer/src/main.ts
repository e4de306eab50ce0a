/** The admin UI's overview: health from /v2/ping and the operation list from /openapi.json. */
interface OpenApi {
  paths: Record<string, { post: { summary: string; security: Array<Record<string, unknown>> } }>;
}

const byId = (id: string) => document.getElementById(id) as HTMLElement;

function authOf(security: Array<Record<string, unknown>>): string {
  const first = security[0];
  if (!first) return 'public';
  return 'workspaceId' in first ? 'workspace' : 'API key';
}

async function load() {
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
  const doc = (await (await fetch('/openapi.json')).json()) as OpenApi;
  const paths = Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b));
  byId('operations').textContent = String(paths.length);
  const rows = paths.map(([path, item]) => {
    const tr = document.createElement('tr');
    for (const text of [path, authOf(item.post.security), item.post.summary]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  byId('operation-list').querySelector('tbody')?.append(...rows);
}

void load();
