// Issue 42, point 8: the admin UI's reset and import replace a key's documents under their connected editors. The
// stock y-websocket provider (3.x) gives up for good on close codes 4400–4499; the live documents are closed with
// 1012 ("service restart") instead, which it retries: the editor reconnects, syncs with what is stored now, and
// hears the edits made after. Real server, real admin API, the provider browsers use (over `ws`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceAnswer, ApiKeyAnswer, AuthTokensAnswer } from '../helpers/answers.ts';
import { adminCookie } from '../helpers/admin.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
});
afterAll(() => t.close());

const post = (path: string, body: unknown) =>
  fetch(`${t.url}/admin/api${path}`, { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body: JSON.stringify(body) });
const get = (path: string, params: Record<string, string>) => fetch(`${t.url}/admin/api${path}?${new URLSearchParams(params)}`, { headers: { cookie } });

const ROOM = { organizationId: 'acme', documentId: 'plan', editorId: 'main' };

/** An editor on ROOM with the stock provider, recording the codes its connections were closed with. */
async function editor(credentials: { apiKey: string; authToken: string }) {
  const client = connectYjs(t.url, ROOM, { apiKey: credentials.apiKey, authToken: credentials.authToken, type: 'text', contentKey: 'content' });
  const closes: number[] = [];
  let syncs = 0;
  client.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? -1));
  client.provider.on('sync', (synced: boolean) => synced && syncs++);
  await client.synced;
  return { ...client, closes, syncs: () => syncs, text: () => client.doc.getText('content').toString() };
}

/** crdt/get's text of ROOM under the given key's headers (the default key's without). */
async function storedText(headers?: Record<string, string>): Promise<unknown> {
  return dataOf<Array<{ data: unknown }>>(await t.callK('/v2/crdt/get', ROOM, headers))[0]?.data;
}

describe('reset and import keep connected editors syncing (issue 42, point 8)', () => {
  it('reset: the editor is closed with 1012, reconnects, and hears the edits made after the reset', async () => {
    await t.callK('/v2/crdt/add', { ...ROOM, type: 'text', data: 'before the reset' });
    const ed = await editor(t.credentials);
    try {
      expect(ed.text()).toBe('before the reset');
      expect((await post('/data/reset', { apiKey: t.credentials.apiKey, confirm: 'reset' })).status).toBe(200);
      await eventually(() => expect(ed.closes).toEqual([1012]), 10_000);
      // the stock provider does not give up: it connects again and syncs (a second sync event)
      await eventually(() => expect(ed.syncs()).toBe(2), 10_000);
      expect(ed.provider.shouldConnect).toBe(true);
      // the room as the reconnect made it again; an edit from the API reaches the editor over the new connection
      await t.callK('/v2/crdt/update', { ...ROOM, type: 'text', data: 'written after the reset' });
      await eventually(() => expect(ed.text()).toBe('written after the reset'), 10_000);
      expect(await storedText()).toBe('written after the reset');
    } finally {
      ed.close();
    }
  });

  it('import: the editor is closed with 1012, reconnects, and syncs the imported content', async () => {
    // the archive: ROOM of a second key of the workspace, with other content
    const ownerEmail = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    const second = dataOf<ApiKeyAnswer>(await t.callW('/v2/workspace/apikey/create', { ownerEmail, type: 'testing', createAuthToken: true })).apiKey;
    const token = dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey: second })).authTokens[0]!.token;
    const secondHeaders = { 'x-svc-api-key': second, 'x-svc-auth-token': token };
    await t.callK('/v2/crdt/add', { ...ROOM, type: 'text', data: 'the imported text' }, secondHeaders);
    const archive = await (await get('/data/export', { apiKey: second })).json();

    await t.callK('/v2/crdt/update', { ...ROOM, type: 'text', data: '' });
    const ed = await editor(t.credentials);
    try {
      expect(ed.text()).toBe('');
      const imported = await post('/data/import', { apiKey: t.credentials.apiKey, archive });
      expect(imported.status).toBe(200);
      await eventually(() => expect(ed.closes).toEqual([1012]), 10_000);
      await eventually(() => expect(ed.text()).toBe('the imported text'), 10_000);
      expect(ed.provider.shouldConnect).toBe(true);
      expect(await storedText()).toBe('the imported text');
      // and it stays live: an edit from the API reaches it
      await t.callK('/v2/crdt/update', { ...ROOM, type: 'text', data: 'the imported text, edited' });
      await eventually(() => expect(ed.text()).toBe('the imported text, edited'), 10_000);
    } finally {
      ed.close();
    }
  });
});
