import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
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

describe('admin UI session', () => {
  it('never signs in by itself, on loopback neither: the session is 401 without a cookie, and sets none', async () => {
    const res = await get('/admin/api/session');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ signedIn: false, error: { status: 'UNAUTHENTICATED', message: expect.stringContaining('sign-in link') } });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await get('/admin/api/overview')).status).toBe(401);
  });

  it('signs in once with a one-time link: an HttpOnly SameSite=Strict cookie scoped to /admin, then the UI', async () => {
    const link = t.server.signInLink();
    expect(link).toMatch(new RegExp(`^${t.url}/admin/signin\\?token=[\\w-]+\\.[\\w-]+$`));
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^hearth_session=[\w-]{32}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const session = await get('/admin/api/session', { cookie: cookieOf(res) });
    expect(await session.json()).toEqual({ signedIn: true, workspaceId: t.credentials.workspaceId });
    // spent: the same link again is refused with a page that says how to get a new one
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain('npx hearth signin-link');
  });

  it('refuses forged, altered and foreign sign-in tokens', async () => {
    const token = new URL(t.server.signInLink()).searchParams.get('token') as string;
    const [payload, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const other = await createWorkspace(t);
    const altered = Buffer.from(JSON.stringify({ ...claims, w: other.workspaceId })).toString('base64url');
    for (const bad of ['', 'x', `${payload}.${mac.slice(1)}x`, `${altered}.${mac}`, `${payload}`, `${payload}.${mac}.${mac}`]) {
      const res = await fetch(`${t.url}/admin/signin?token=${encodeURIComponent(bad)}`, { redirect: 'manual' });
      expect(res.status, bad).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // the unaltered token still works once: the refusals above spent nothing
    expect((await fetch(`${t.url}/admin/signin?token=${token}`, { redirect: 'manual' })).status).toBe(303);
  });

  it('signs another workspace in by its own link, or by its credentials; it sees its own overview, without the data dir', async () => {
    const other = await createWorkspace(t);
    const wrong = await fetch(t.url + '/admin/api/session', {
      method: 'POST',
      headers: UI,
      body: JSON.stringify({ workspaceId: other.workspaceId, workspaceAuthToken: 'nope' }),
    });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const signIn = await fetch(t.url + '/admin/api/session', {
      method: 'POST',
      headers: UI,
      body: JSON.stringify({ workspaceId: other.workspaceId, workspaceAuthToken: other.workspaceAuthToken }),
    });
    expect(await signIn.json()).toEqual({ signedIn: true, workspaceId: other.workspaceId });
    const overview = await (await get('/admin/api/overview', { cookie: cookieOf(signIn) })).json();
    expect(overview).toMatchObject({ workspaceId: other.workspaceId, dataDir: null, version: expect.any(String) });
    expect(overview).not.toHaveProperty('credentials');
    expect(JSON.stringify(overview)).not.toContain(t.credentials.workspaceAuthToken);
    const byLink = await fetch(t.server.signInLink(other.workspaceId), { redirect: 'manual' });
    expect(await (await get('/admin/api/session', { cookie: cookieOf(byLink) })).json()).toEqual({ signedIn: true, workspaceId: other.workspaceId });
    const out = await fetch(t.url + '/admin/api/session', { method: 'DELETE', headers: { ...UI, cookie: cookieOf(signIn) } });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await get('/admin/api/overview', { cookie: cookieOf(signIn) })).status).toBe(401);
  });

  it('refuses admin calls without the UI header (a cross-site form or image cannot add it)', async () => {
    const res = await fetch(t.url + '/admin/api/session');
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await fetch(t.url + '/admin/api/session', { method: 'POST', body: '{}' })).status).toBe(403);
  });
});

describe('admin overview and request monitor', () => {
  it("shows the operator (the default workspace's session) the data dir and counts, and nobody the credentials file", async () => {
    const cookie = await adminCookie(t);
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] });
    const overview = await (await get('/admin/api/overview', { cookie })).json();
    expect(overview).toMatchObject({ baseUrl: t.url, dataDir: t.dataDir, workspaceId: t.credentials.workspaceId, counts: { organizations: 1 } });
    expect(JSON.stringify(overview)).not.toContain(t.credentials.workspaceAuthToken);
    expect(JSON.stringify(overview)).not.toContain(t.credentials.authToken);
  });

  it('lists calls, streams new ones live, and shows bodies with secrets redacted while watched', async () => {
    const cookie = await adminCookie(t);
    await t.callK('/v2/workspace/apikeyconfig/get', {});
    const listed = (await (await get('/admin/api/requests', { cookie })).json()).items;
    expect(listed.at(-1)).toMatchObject({
      method: 'POST',
      path: '/v2/workspace/apikeyconfig/get',
      status: 200,
      hasBodies: false,
      caller: t.credentials.apiKey,
    });

    const controller = new AbortController();
    const stream = await fetch(t.url + '/admin/api/requests/stream', { headers: { cookie }, signal: controller.signal });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = stream.body!.getReader();
    const events: Array<{ id: number; path: string; status: number; hasBodies: boolean }> = [];
    let connected!: () => void;
    const watching = new Promise<void>((resolve) => (connected = resolve));
    const reading = (async () => {
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const chunk = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          // the server's first line: from here on the monitor is watched and keeps bodies
          if (chunk === ': connected') connected();
          if (chunk.startsWith('data: ')) events.push(JSON.parse(chunk.slice(6)));
        }
        if (events.length >= 2) return;
      }
    })();
    await watching;
    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-very-secret' }] });
    await t.callK('/v2/agents/get', { agentId: 'missing' });
    await reading;
    controller.abort();
    expect(events.map((e) => [e.path, e.status, e.hasBodies])).toEqual([
      ['/v2/workspace/apikeyconfig/update', 200, true],
      ['/v2/agents/get', 404, true],
    ]);
    const detail = await (await get(`/admin/api/requests/${events[0]!.id}`, { cookie })).json();
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
