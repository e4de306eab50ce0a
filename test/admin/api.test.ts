import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const UI = { 'x-hearth-ui': '1' };
const get = (path: string, headers: Record<string, string> = {}) => fetch(t.url + path, { headers: { ...UI, ...headers } });
const cookieOf = (res: { headers: { get(name: string): string | null } }) => (res.headers.get('set-cookie') ?? '').split(';')[0] as string;

/** A request with a Host header of our choosing (fetch does not let a caller set Host). */
function asHost(host: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: { get(name: string): string | null }; json(): Promise<any> }>((resolve, reject) => {
    const req = request(t.url + path, { method, headers: { ...UI, ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const cookie = res.headers['set-cookie'];
        resolve({ status: res.statusCode ?? 0, headers: { get: (name) => (name === 'set-cookie' ? (cookie ? cookie.join(', ') : null) : ((res.headers[name] as string | undefined) ?? null)) }, json: async () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('admin UI session', () => {
  it('signs in by itself on loopback, with an HttpOnly SameSite=Strict cookie scoped to /admin', async () => {
    const res = await get('/admin/api/session');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signedIn: true, workspaceId: t.credentials.workspaceId, automatic: true });
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^hearth_session=[\w-]{32}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const again = await get('/admin/api/session', { cookie: cookieOf(res) });
    expect(await again.json()).toEqual({ signedIn: true, workspaceId: t.credentials.workspaceId });
  });

  it('requires signing in when the browser addressed the server by another name (DNS rebinding, a LAN name)', async () => {
    const host = 'hearth.example.com';
    const res = await asHost(host, 'GET', '/admin/api/session');
    expect(res.status).toBe(401);
    expect((await res.json()).signedIn).toBe(false);
    expect((await asHost(host, 'GET', '/admin/api/overview')).status).toBe(401);
    const wrong = await asHost(host, 'POST', '/admin/api/session', {}, JSON.stringify({ workspaceId: t.credentials.workspaceId, workspaceAuthToken: 'nope' }));
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const other = await createWorkspace(t);
    const signIn = await asHost(host, 'POST', '/admin/api/session', {}, JSON.stringify({ workspaceId: other.workspaceId, workspaceAuthToken: other.workspaceAuthToken }));
    expect(await signIn.json()).toEqual({ signedIn: true, workspaceId: other.workspaceId });
    const overview = await (await asHost(host, 'GET', '/admin/api/overview', { cookie: cookieOf(signIn) })).json();
    // another workspace sees its own id and counts, not the default workspace's credentials
    expect(overview).toMatchObject({ workspaceId: other.workspaceId, credentials: null, version: expect.any(String) });
    const out = await fetch(t.url + '/admin/api/session', { method: 'DELETE', headers: { ...UI, cookie: cookieOf(signIn) } });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await asHost(host, 'GET', '/admin/api/overview', { cookie: cookieOf(signIn) })).status).toBe(401);
  });

  it('refuses admin calls without the UI header (a cross-site form or image cannot add it)', async () => {
    const res = await fetch(t.url + '/admin/api/session');
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await fetch(t.url + '/admin/api/session', { method: 'POST', body: '{}' })).status).toBe(403);
  });
});

describe('admin overview and request monitor', () => {
  it('shows the default credentials, the data dir and counts', async () => {
    const cookie = cookieOf(await get('/admin/api/session'));
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] });
    const overview = await (await get('/admin/api/overview', { cookie })).json();
    expect(overview).toMatchObject({ baseUrl: t.url, dataDir: t.dataDir, workspaceId: t.credentials.workspaceId, credentials: t.credentials, counts: { organizations: 1 } });
  });

  it('lists calls, streams new ones live, and shows bodies with secrets redacted while watched', async () => {
    const cookie = cookieOf(await get('/admin/api/session'));
    await t.callK('/v2/ping', {});
    const listed = (await (await get('/admin/api/requests', { cookie })).json()).items;
    expect(listed.at(-1)).toMatchObject({ method: 'POST', path: '/v2/ping', status: 200, hasBodies: false, caller: t.credentials.apiKey });

    const controller = new AbortController();
    const stream = await fetch(t.url + '/admin/api/requests/stream', { headers: { cookie }, signal: controller.signal });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = stream.body!.getReader();
    const events: any[] = [];
    const reading = (async () => {
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const chunk = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (chunk.startsWith('data: ')) events.push(JSON.parse(chunk.slice(6)));
        }
        if (events.length >= 2) return;
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-very-secret' }] });
    await t.callK('/v2/agents/get', { agentId: 'missing' });
    await reading;
    controller.abort();
    expect(events.map((e) => [e.path, e.status, e.hasBodies])).toEqual([
      ['/v2/workspace/apikeyconfig/update', 200, true],
      ['/v2/agents/get', 404, true],
    ]);
    const detail = await (await get(`/admin/api/requests/${events[0].id}`, { cookie })).json();
    expect(detail.request).toContain('"customerApiKey":"[redacted]"');
    expect(detail.request).not.toContain('sk-very-secret');
    expect(JSON.parse(detail.response).result.status).toBe('success');
    expect((await get('/admin/api/requests/999999', { cookie })).status).toBe(404);
    expect((await fetch(t.url + '/admin/api/requests/stream')).status).toBe(401);
  });
});

describe('admin API input', () => {
  it('answers bad and oversized bodies with an error envelope, never a 5xx', async () => {
    const post = (body: string) => fetch(t.url + '/admin/api/session', { method: 'POST', headers: UI, body });
    for (const body of ['not json', '[1,2]', 'null', '"x"']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.status).toBe('INVALID_ARGUMENT');
    }
    const huge = await post(JSON.stringify({ workspaceId: 'x'.repeat(11 * 1024 * 1024) }));
    expect(huge.status).toBe(400);
    expect((await huge.json()).error.status).toBe('INVALID_ARGUMENT');
  });
});
