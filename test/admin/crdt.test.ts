import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { adminCookie } from '../helpers/admin.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
}

let t: TestServer;
let cookie: string;
const room = { organizationId: 'acme', documentId: 'doc', editorId: 'body' };
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
  await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'first draft' });
});
afterAll(() => t.close());

const ticketFor = async (body: Record<string, unknown>) =>
  fetch(t.url + '/admin/api/crdt/ticket', { method: 'POST', headers: { cookie, 'x-hearth-ui': '1' }, body: JSON.stringify(body) });

describe('admin CRDT inspector', () => {
  it("lists the workspace's editor documents with their storage figures and connected clients", async () => {
    const client = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await client.synced;
    const { items } = await (await fetch(t.url + '/admin/api/crdt', { headers: { cookie } })).json();
    expect(items).toEqual([
      expect.objectContaining({
        apiKey: t.credentials.apiKey,
        ...room,
        type: 'text',
        contentKey: 'content',
        updateCount: 1,
        snapshotBytes: 0,
        compactedAt: null,
        connections: 1,
        lastUpdatedBy: 'rest-api',
      }),
    ]);
    client.close();
  });

  it('opens a document read-only with a ticket: it syncs and follows changes, and its writes are refused', async () => {
    const { ticket } = await (await ticketFor({ apiKey: t.credentials.apiKey, ...room })).json();
    const viewer = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, ticket });
    await viewer.synced;
    expect(viewer.doc.getText('content').toString()).toBe('first draft');
    await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'second draft' });
    await eventually(() => expect(viewer.doc.getText('content').toString()).toBe('second draft'));
    const editor = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await editor.synced;
    viewer.doc.getText('content').insert(0, 'HACK ');
    // then the viewer's own presence, which the editor sees once the server handled it: one connection's messages
    // are handled in order, so the write before it was handled too, and refused
    viewer.provider.awareness.setLocalStateField('user', { name: 'inspector' });
    await eventually(() => expect([...editor.provider.awareness.getStates().values()].map((s) => s.user?.name)).toContain('inspector'));
    expect(editor.doc.getText('content').toString()).toBe('second draft');
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', { ...room }))[0]!.data).toBe('second draft');
    editor.close();
    viewer.close();
  });

  it("issues tickets only for the workspace's own documents, and a ticket opens only its document", async () => {
    expect((await ticketFor({ apiKey: t.credentials.apiKey, ...room, editorId: 'missing' })).status).toBe(404);
    const other = await createWorkspace(t);
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'theirs' }, other.headersK);
    expect((await ticketFor({ apiKey: other.apiKey, ...room })).status).toBe(404);
    const { ticket } = await (await ticketFor({ apiKey: t.credentials.apiKey, ...room })).json();
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/yjs/acme/doc/other-editor?apiKey=${t.credentials.apiKey}&ticket=${ticket}`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(refused).toBe(403);
    expect((await ticketFor({ apiKey: t.credentials.apiKey })).status).toBe(400);
  });
});
