// Issue 42, point 1: one client's document of 30,000 nested XML elements made the debounced crdt.update_data
// resolution throw "Maximum call stack size exceeded" every second, for good, and since it resolved every key's due
// events in one unit of work, no other key's event was ever delivered. Now each event is resolved on its own and
// the poisoned one is quarantined; reads of the document answer a clear error; its updates still store and sync.
// Point 10b: a map key "__proto__" is kept through REST, y-websocket and webhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';
import { connectYjs, nestXml } from '../helpers/yjs.ts';

const DEPTH = 30_000;
const deep = { organizationId: 'o', documentId: 'deep', editorId: 'main' };

let t: TestServer;
const receivers: Receiver[] = [];
const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};
beforeAll(async () => {
  t = await startTestServer({ webhooks: FAST_WEBHOOKS });
});
afterAll(async () => {
  await t.close();
  await Promise.all(receivers.map((r) => r.close()));
});

const keyParams = () => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });

/** How deep the first-child chain of a fragment goes, walked without recursion. */
function chainDepth(fragment: Y.XmlFragment): number {
  let depth = 0;
  for (let node = fragment.get(0); node instanceof Y.XmlElement; node = node.get(0)) depth++;
  return depth;
}

/** The crdt.update_data payloads a receiver got for a document, parsed. */
const updatesOf = (r: Receiver, documentId: string) =>
  r
    .events('crdt.update_data')
    .map((x) => JSON.parse(x.body) as { data: { crdtData: { data: unknown }; metadata: { clientDocumentId: string } } })
    .filter((p) => p.data.metadata.clientDocumentId === documentId);

/** The outbox rows of the deep document's events: whether each is closed, and whether without a payload (either engine). */
const deepEvents = () =>
  t.query<{ closed: number; empty: number }>(
    `SELECT CAST(CASE WHEN dispatched_at IS NULL THEN 0 ELSE 1 END AS INTEGER) AS closed, CAST(CASE WHEN payload IS NULL THEN 1 ELSE 0 END AS INTEGER) AS empty
     FROM webhook_events WHERE type = 'crdt.update_data' AND document_id = ?`,
    [deep.documentId],
  );

describe('a document nesting 30,000 XML elements', () => {
  it("is quarantined alone: other keys' and documents' crdt.update_data are delivered, reads answer a clear error, sync goes on, and nothing loops after a restart", async () => {
    const mine = await receiver();
    await enableWithEndpoint(t, mine.url, { filterTypes: ['crdt.update_data'] });
    const other = await createWorkspace(t);
    const theirs = await receiver();
    await enableWithEndpoint(t, theirs.url, { filterTypes: ['crdt.update_data'] }, other.headersK);

    // the attack: one sync update over /yjs/o/deep/main?…&type=xml&contentKey=default
    const writer = connectYjs(t.url, deep, { ...keyParams(), type: 'xml', contentKey: 'default' });
    try {
      await writer.synced;
      let sent = 0;
      writer.doc.on('update', (update: Uint8Array) => (sent += update.length));
      nestXml(writer.doc, 'default', DEPTH);
      expect(sent).toBeGreaterThan(300_000);
      // stored: its debounced event is opened (and, resolved, quarantined: closed without a payload)
      await eventually(async () => expect((await deepEvents()).length).toBeGreaterThan(0), 10_000);

      // another key's document and another document of the same key: their events are delivered
      const plain = { organizationId: 'o', documentId: 'plain', editorId: 'e' };
      await t.callK('/v2/crdt/add', { ...plain, type: 'text', data: 'mine' });
      const theirDoc = { organizationId: 'o2', documentId: 'theirs', editorId: 'e' };
      expect((await t.callK('/v2/crdt/add', { ...theirDoc, type: 'text', data: 'theirs' }, other.headersK)).status).toBe(200);
      await eventually(() => expect(updatesOf(mine, 'plain').map((p) => p.data.crdtData.data)).toEqual(['mine']), 10_000);
      await eventually(() => expect(updatesOf(theirs, 'theirs').map((p) => p.data.crdtData.data)).toEqual(['theirs']), 10_000);
      // each quarantined: closed without a payload (the server applies the update in slices, one per turn of its
      // event loop, so a slow machine may see more than one debounce window pass, and open more than one event)
      await eventually(async () => {
        const events = await deepEvents();
        expect(events.length).toBeGreaterThan(0);
        expect(events.filter((e) => e.closed !== 1 || e.empty !== 1)).toEqual([]);
      }, 10_000);
      expect(updatesOf(mine, 'deep')).toEqual([]);

      // reads answer FAILED_PRECONDITION naming the limit, never a 500
      const got = await t.callK('/v2/crdt/get', deep);
      expect(got.status).toBe(400);
      expect(errorOf(got)).toEqual({
        status: 'FAILED_PRECONDITION',
        message:
          "This document's content nests deeper than 512 levels (the depth limit), so it cannot be rendered; its updates are still stored and synced to its clients.",
      });
      const written = await t.callK('/v2/crdt/update', { ...deep, type: 'xml', data: '<p>flat</p>' });
      expect(written.status).toBe(400);
      expect(errorOf(written).status).toBe('FAILED_PRECONDITION');
      expect(errorOf(written).message).toMatch(/deeper than 512 levels \(the depth limit\)/);
      const cookie = await adminCookie(t);
      const admin = (path: string, params: Record<string, string>) =>
        fetch(`${t.url}/admin/api${path}?${new URLSearchParams({ apiKey: t.credentials.apiKey, ...deep, ...params })}`, { headers: { cookie } });
      for (const [path, params] of [
        ['/crdt/state', {}],
        ['/crdt/export', { format: 'json' }],
      ] as const) {
        const res = await admin(path, params);
        expect([path, res.status]).toEqual([path, 400]);
        expect(((await res.json()) as { error: { status: string; message: string } }).error).toMatchObject({
          status: 'FAILED_PRECONDITION',
          message: expect.stringMatching(/deeper than 512 levels/),
        });
      }
      // a restore would delete the live content and copy a past one (both recursive in Yjs): refused first
      const history = (await (await admin('/crdt/history', {})).json()) as { entries: Array<{ seq: number }> };
      const restore = await fetch(`${t.url}/admin/api/crdt/restore`, {
        method: 'POST',
        headers: { cookie, 'x-hearth-ui': '1' },
        body: JSON.stringify({ apiKey: t.credentials.apiKey, ...deep, seq: history.entries[0]!.seq }),
      });
      expect(restore.status).toBe(400);
      expect(((await restore.json()) as { error: { status: string } }).error.status).toBe('FAILED_PRECONDITION');
      // the raw update is kept: the binary export has it
      const raw = await admin('/crdt/export', { format: 'yjs' });
      expect(raw.status).toBe(200);
      const exported = new Y.Doc();
      Y.applyUpdate(exported, new Uint8Array(await raw.arrayBuffer()));
      expect(chainDepth(exported.getXmlFragment('default'))).toBe(DEPTH);

      // live sync goes on: another client receives the document, then the writer's next change
      const reader = connectYjs(t.url, deep, { ...keyParams(), type: 'xml', contentKey: 'default' });
      try {
        await reader.synced;
        const theirs2 = reader.doc.getXmlFragment('default');
        await eventually(() => expect(chainDepth(theirs2)).toBe(DEPTH), 10_000);
        (writer.doc.getXmlFragment('default').get(0) as Y.XmlElement).setAttribute('seen', 'yes');
        await eventually(() => expect((theirs2.get(0) as Y.XmlElement).getAttribute('seen')).toBe('yes'), 10_000);
      } finally {
        reader.close();
      }
    } finally {
      writer.close();
    }

    // after a restart: nothing of the deep document is pending (nothing loops), the others' events still come
    await eventually(async () => expect((await deepEvents()).every((e) => e.closed === 1)).toBe(true), 10_000);
    await t.restart();
    expect((await deepEvents()).every((e) => e.closed === 1)).toBe(true);
    await t.callK('/v2/crdt/update', { organizationId: 'o', documentId: 'plain', editorId: 'e', type: 'text', data: 'mine again' });
    await t.callK('/v2/crdt/update', { organizationId: 'o2', documentId: 'theirs', editorId: 'e', type: 'text', data: 'theirs again' }, other.headersK);
    await eventually(() => expect(updatesOf(mine, 'plain').map((p) => p.data.crdtData.data)).toEqual(['mine', 'mine again']), 10_000);
    await eventually(() => expect(updatesOf(theirs, 'theirs').map((p) => p.data.crdtData.data)).toEqual(['theirs', 'theirs again']), 10_000);
    expect((await deepEvents()).every((e) => e.closed === 1 && e.empty === 1)).toBe(true);
    expect(updatesOf(mine, 'deep')).toEqual([]);
    // and the deep document still loads from storage for a new client
    const late = connectYjs(t.url, deep, { ...keyParams(), type: 'xml', contentKey: 'default' });
    try {
      await late.synced;
      await eventually(() => expect(chainDepth(late.doc.getXmlFragment('default'))).toBe(DEPTH), 10_000);
    } finally {
      late.close();
    }
  });
});

describe('a map key "__proto__"', () => {
  it('is kept exactly through REST crdt/add, crdt/get and crdt/update, a y-websocket client, and the webhook payload', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url, { filterTypes: ['crdt.update_data'], channels: ['proto'] });
    const room = { organizationId: 'o', documentId: 'proto', editorId: 'm' };
    // JSON text, as a client sends it: an object literal's __proto__ would set the prototype instead
    const data = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
    expect((await t.callK('/v2/crdt/add', { ...room, type: 'map', data })).status).toBe(200);
    const read = async () => dataOf<Array<{ data: Record<string, unknown> }>>(await t.callK('/v2/crdt/get', room))[0]!.data;
    const first = await read();
    expect(Object.hasOwn(first, '__proto__')).toBe(true);
    expect(JSON.stringify(first)).toBe('{"__proto__":{"x":1},"a":1}');

    const client = connectYjs(t.url, room, keyParams());
    try {
      await client.synced;
      const map = client.doc.getMap('content');
      expect(map.get('__proto__')).toEqual({ x: 1 });
      // a client's write of the key reaches REST and the webhook payload
      map.set('__proto__', 'from a client');
      await eventually(async () => expect(JSON.stringify(await read())).toBe('{"__proto__":"from a client","a":1}'));
      await eventually(
        () =>
          expect(r.events('crdt.update_data').map((x) => JSON.stringify(JSON.parse(x.body).data.crdtData.data))).toContain(
            '{"__proto__":"from a client","a":1}',
          ),
        10_000,
      );
      // a REST update of the key reaches the client; one without it deletes it
      await t.callK('/v2/crdt/update', { ...room, type: 'map', data: JSON.parse('{"__proto__": 2, "a": 1}') });
      await eventually(() => expect(map.get('__proto__')).toBe(2));
      await t.callK('/v2/crdt/update', { ...room, type: 'map', data: { a: 1 } });
      await eventually(() => expect(map.has('__proto__')).toBe(false));
      expect(JSON.stringify(await read())).toBe('{"a":1}');
    } finally {
      client.close();
    }
    // below the top level, where Yjs's JSON decoder would drop it, it is refused with a clear error
    const nested = await t.callK('/v2/crdt/update', { ...room, type: 'map', data: JSON.parse('{"a": {"__proto__": 1}}') });
    expect(errorOf(nested)).toEqual({
      status: 'INVALID_ARGUMENT',
      message: `data.a.__proto__ cannot be stored: below the top level a key "__proto__" would be lost (Yjs's JSON decoder drops it).`,
    });
  });
});
