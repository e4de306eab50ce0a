// An API key's allowed domains (/v2/workspace/domains/*) decide which browser pages may open its documents over
// y-websocket: the Origin a page's upgrade carries must match one of them; clients without an Origin (servers,
// scripts) are not browsers and are not bound. The browser itself is exercised in test/e2e/allowed-domains.test.ts.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs, upgradeAnswer, upgradeStatus } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Ws = Awaited<ReturnType<typeof createWorkspace>>;
const setDomains = async (ws: Ws, add: string[], remove: string[] = []) => {
  if (add.length) expect((await t.callPublic('/v2/workspace/domains/add', { domains: add }, ws.headersK)).status).toBe(200);
  if (remove.length) expect((await t.callPublic('/v2/workspace/domains/delete', { domains: remove }, ws.headersK)).status).toBe(200);
};
const backend = (ws: Ws, editorId = 'e') => `/yjs/acme/doc/${editorId}?apiKey=${ws.apiKey}&authToken=${ws.authToken}`;
const asUser = async (ws: Ws, userId: string) => {
  await t.callPublic(
    '/v2/organizations/documents/add',
    { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc', accessType: 'restricted' }] },
    ws.headersK,
  );
  await t.callPublic('/v2/users/add', { organizationId: 'acme', documentId: 'doc', users: [{ userId, accessRole: 'editor' }] }, ws.headersK);
  const res = await t.callPublic('/v2/auth/generate_token', { userId }, ws.headersK);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return `/yjs/acme/doc/e?apiKey=${ws.apiKey}&token=${dataOf<UserTokenAnswer>(res).token}`;
};
const status = (path: string, origin?: string) => upgradeStatus(t.url, path, origin === undefined ? {} : { origin });

describe('allowed domains on the y-websocket upgrade', () => {
  it('lets pages of any origin in while the key lists no domain', async () => {
    const ws = await createWorkspace(t);
    expect(await status(backend(ws), 'https://anything.example.net')).toBe(101);
    expect(await status(await asUser(ws, 'ann'), 'http://localhost:3000')).toBe(101);
  });

  it('lets in only pages of a listed domain: exact host, any port unless one is given, *. for subdomains', async () => {
    const ws = await createWorkspace(t);
    await setDomains(ws, ['app.example.com', '*.example.org', 'localhost:5173']);
    const user = await asUser(ws, 'ann');
    const cases: Array<[string, number]> = [
      ['https://app.example.com', 101],
      ['http://app.example.com:8080', 101],
      ['https://APP.example.com', 101],
      ['https://evil.example.com', 403],
      ['https://app.example.com.evil.net', 403],
      ['https://a.example.org', 101],
      ['https://a.b.example.org', 101],
      ['https://example.org', 403],
      ['https://notexample.org', 403],
      ['http://localhost:5173', 101],
      ['http://localhost:3000', 403],
      ['http://localhost', 403],
      ['null', 403],
      ['not a url', 403],
    ];
    for (const [origin, expected] of cases) {
      expect(await status(backend(ws), origin), `${origin} with the key's auth token`).toBe(expected);
      expect(await status(user, origin), `${origin} with a user token`).toBe(expected);
    }
    // no Origin: a server or a script, not a page
    expect(await status(backend(ws))).toBe(101);
    expect(await status(user)).toBe(101);
    const refused = await upgradeAnswer(t.url, user, { origin: 'https://evil.example.com' });
    expect(refused).toEqual({ status: 403, body: 'Origin https://evil.example.com is not an allowed domain of this API key.' });
  });

  it('follows the list as it changes, and each key keeps its own', async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    await setDomains(a, ['a.example.com']);
    expect(await status(backend(a), 'https://b.example.com')).toBe(403);
    expect(await status(backend(b), 'https://b.example.com')).toBe(101);
    await setDomains(b, ['b.example.com']);
    expect(await status(backend(b), 'https://a.example.com')).toBe(403);
    await setDomains(a, ['b.example.com'], ['a.example.com']);
    expect(await status(backend(a), 'https://a.example.com')).toBe(403);
    expect(await status(backend(a), 'https://b.example.com')).toBe(101);
    // the last one removed: any origin again
    await setDomains(a, [], ['b.example.com']);
    expect(await status(backend(a), 'https://a.example.com')).toBe(101);
  });

  it('a page of an allowed origin syncs with the real y-websocket client; a refused one never sees the content', async () => {
    const ws = await createWorkspace(t);
    await setDomains(ws, ['app.example.com']);
    const params = { apiKey: ws.apiKey, authToken: ws.authToken };
    const room = { organizationId: 'acme', documentId: 'doc', editorId: 'live' };
    // the socket class y-websocket is given, stating the origin a page of `origin` would
    const withOrigin = (origin: string) =>
      class extends WebSocket {
        constructor(url: string | URL | null, protocols?: string | string[]) {
          super(url as string, protocols, { origin });
        }
      } as typeof WebSocket;
    const page = connectYjs(t.url, room, params, withOrigin('https://app.example.com'));
    const other = connectYjs(t.url, room, params, withOrigin('https://evil.example.com'));
    try {
      await page.synced;
      page.doc.getText('content').insert(0, 'from the allowed page');
      await eventually(async () => {
        const stored = await t.callPublic('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'live' }, ws.headersK);
        expect(dataOf<CrdtItem[]>(stored)[0]?.data).toBe('from the allowed page');
      });
      expect(other.provider.synced).toBe(false);
      expect(other.doc.getText('content').toString()).toBe('');
    } finally {
      page.close();
      other.close();
    }
  });
});
