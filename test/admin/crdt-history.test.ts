// Document history over the admin API (real HTTP, real y-websocket clients): the stored log's entries, the
// document at a chosen point, restore as a new update that connected clients converge on, and export.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { historyAnswer, stateAnswer } from '../../shared/admin.ts';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
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
  await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'one' });
  await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'one two' });
  await t.callK('/v2/crdt/update', { ...room, type: 'text', data: 'one two three' });
});
afterAll(() => t.close());

const key = () => ({ apiKey: t.credentials.apiKey, ...room });
const get = (path: string, params: Record<string, string | number>, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/admin/api${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`, { headers: { cookie, ...headers } });
const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-hearth-ui': '1' }) =>
  fetch(`${t.url}/admin/api${path}`, { method: 'POST', headers: { cookie, ...headers }, body: JSON.stringify(body) });

describe('document history', () => {
  it('lists the stored updates with who, when and size, and gives the document at each of them', async () => {
    const history = historyAnswer.parse(await (await get('/crdt/history', key())).json());
    expect(history.kept).toBe(1000);
    expect(history.entries).toHaveLength(3);
    expect(history.entries.map((e) => e.by)).toEqual(['rest-api', 'rest-api', 'rest-api']);
    expect(history.entries.every((e) => e.bytes > 0 && e.at > 0 && !e.merged)).toBe(true);
    const states = [];
    for (const e of history.entries) states.push(stateAnswer.parse(await (await get('/crdt/state', { ...key(), seq: e.seq })).json()).content);
    expect(states).toEqual(['one', 'one two', 'one two three']);
    expect((await (await get('/crdt/state', key())).json()).content).toBe('one two three');
    const missing = await get('/crdt/state', { ...key(), seq: 999_999 });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.status).toBe('NOT_FOUND');
  });

  it('restores a past state as a new update: a connected client converges, REST reads it, the history records it', async () => {
    const client = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await client.synced;
    expect(client.doc.getText('content').toString()).toBe('one two three');
    const first = historyAnswer.parse(await (await get('/crdt/history', key())).json()).entries[0]!;
    const restored = await post('/crdt/restore', { ...key(), seq: first.seq });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toMatchObject({ restored: true, seq: first.seq, bytes: expect.any(Number) });
    await eventually(() => expect(client.doc.getText('content').toString()).toBe('one'));
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('one');
    const after = historyAnswer.parse(await (await get('/crdt/history', key())).json()).entries;
    expect(after).toHaveLength(4);
    expect(after.at(-1)!.by).toBe('admin-restore');
    // the client keeps editing on top of it
    client.doc.getText('content').insert(3, '!');
    await eventually(async () => expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', room))[0]!.data).toBe('one!'));
    client.close();
  });

  it('restores maps and XML fragments too', async () => {
    const mapRoom = { organizationId: 'acme', documentId: 'doc', editorId: 'settings' };
    await t.callK('/v2/crdt/add', { ...mapRoom, type: 'map', data: { a: 1, b: 'x' } });
    await t.callK('/v2/crdt/update', { ...mapRoom, type: 'map', data: { a: 2, c: true } });
    const mapKey = { apiKey: t.credentials.apiKey, ...mapRoom };
    const first = historyAnswer.parse(await (await get('/crdt/history', mapKey)).json()).entries[0]!;
    expect((await post('/crdt/restore', { ...mapKey, seq: first.seq })).status).toBe(200);
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', mapRoom))[0]!.data).toEqual({ a: 1, b: 'x' });

    const xmlRoom = { organizationId: 'acme', documentId: 'doc', editorId: 'rich' };
    await t.callK('/v2/crdt/add', { ...xmlRoom, type: 'xml', data: '<paragraph>first <bold>bold</bold></paragraph>' });
    await t.callK('/v2/crdt/update', { ...xmlRoom, type: 'xml', data: '<heading level="2">changed</heading>' });
    const xmlKey = { apiKey: t.credentials.apiKey, ...xmlRoom };
    const before = historyAnswer.parse(await (await get('/crdt/history', xmlKey)).json()).entries[0]!;
    expect((await post('/crdt/restore', { ...xmlKey, seq: before.seq })).status).toBe(200);
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', xmlRoom))[0]!.data).toBe('<paragraph>first <bold>bold</bold></paragraph>');
  });

  it('exports the state as JSON and as a Yjs update', async () => {
    const asJson = await get('/crdt/export', { ...key(), format: 'json' });
    expect(asJson.headers.get('content-disposition')).toBe('attachment; filename="acme-doc-body.json"');
    expect(await asJson.json()).toEqual({ ...room, type: 'text', contentKey: 'content', data: 'one!' });
    const asYjs = await get('/crdt/export', { ...key(), format: 'yjs' });
    expect(asYjs.headers.get('content-type')).toBe('application/octet-stream');
    const doc = new Y.Doc();
    Y.applyUpdate(doc, new Uint8Array(await asYjs.arrayBuffer()));
    expect(doc.getText('content').toString()).toBe('one!');
  });

  it("refuses other workspaces' documents, restores without the UI header or a session, and bad input, with envelopes", async () => {
    const other = await createWorkspace(t);
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: 'theirs' }, other.headersK);
    const theirs = { apiKey: other.apiKey, ...room };
    expect((await get('/crdt/history', theirs)).status).toBe(404);
    expect((await get('/crdt/export', theirs)).status).toBe(404);
    expect((await post('/crdt/restore', { ...theirs, seq: 1 })).status).toBe(404);
    expect((await post('/crdt/restore', { ...key(), seq: 1 }, {})).status).toBe(403);
    expect(
      (await fetch(`${t.url}/admin/api/crdt/restore`, { method: 'POST', headers: { 'x-hearth-ui': '1' }, body: JSON.stringify({ ...key(), seq: 1 }) })).status,
    ).toBe(401);
    for (const body of [{ ...key(), seq: -1 }, { ...key(), seq: 'x' }, { apiKey: t.credentials.apiKey }]) {
      const res = await post('/crdt/restore', body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.status).toBe('INVALID_ARGUMENT');
    }
    const bad = await post('/crdt/restore', 'not json');
    expect(bad.status).toBe(400);
    expect((await get('/crdt/export', { ...key(), format: 'zip' })).status).toBe(400);
    expect((await get('/crdt/page', { apiKey: t.credentials.apiKey, limit: 500 })).status).toBe(400);
  });
});
