// Issue 31: instances of one PostgreSQL database with Redis between them act as one server for the Yjs rooms. Two
// instances in this process (each with its own Redis connections and instance id), real y-websocket providers
// connected to different instances: updates and presence cross, every update is stored once, REST reads on one
// instance see what a client of the other wrote, and an access change made on one closes connections on the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { adminCookie } from '../helpers/admin.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';
import { dataOf, eventually, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';

let cluster: Cluster;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  cluster = await startCluster(2);
  [a, b] = cluster.instances as [TestServer, TestServer];
  await a.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc', accessType: 'restricted' }],
  });
  await a.callK('/v2/users/add', { organizationId: 'acme', documentId: 'doc', users: [{ userId: 'ed', accessRole: 'editor' }] });
});
afterAll(() => cluster?.close());

const keyParams = (t: TestServer) => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
const room = (editorId: string) => ({ organizationId: 'acme', documentId: 'doc', editorId });
const textOf = (client: ReturnType<typeof connectYjs>) => client.doc.getText('default').toString();
/** The room's stored update log, in order, and the text it rebuilds. */
async function storedLog(editorId: string) {
  const rows = await a.query<{ update: Buffer }>(
    'SELECT "update" FROM crdt_updates WHERE organization_id = ? AND document_id = ? AND editor_id = ? ORDER BY seq',
    ['acme', 'doc', editorId],
  );
  const stored = new Y.Doc();
  for (const row of rows) Y.applyUpdate(stored, row.update);
  return { rows, text: stored.getText('default').toString() };
}

describe('Yjs rooms across instances', () => {
  it('converge: every client sees every edit, whichever instance it is connected to, and each update is stored once', async () => {
    const onA = connectYjs(a.url, room('converge'), keyParams(a));
    const onB = connectYjs(b.url, room('converge'), keyParams(b));
    try {
      await Promise.all([onA.synced, onB.synced]);
      onA.doc.getText('default').insert(0, 'from a. ');
      await eventually(() => expect(textOf(onB)).toBe('from a. '));
      onB.doc.getText('default').insert(textOf(onB).length, 'from b.');
      await eventually(() => expect(textOf(onA)).toBe('from a. from b.'));
      // many small edits from both sides at once
      for (let i = 0; i < 50; i++) {
        onA.doc.getText('default').insert(0, 'a');
        onB.doc.getText('default').insert(textOf(onB).length, 'b');
      }
      await eventually(() => {
        expect(textOf(onA)).toBe(textOf(onB));
        expect(textOf(onA).length).toBe('from a. from b.'.length + 100);
      });
      // stored once: the stored log rebuilds exactly the clients' document, and holds no update twice
      await eventually(async () => {
        const { text, rows } = await storedLog('converge');
        expect(text).toBe(textOf(onA));
        const hex = rows.map((r) => Buffer.from(r.update).toString('hex'));
        expect(new Set(hex).size).toBe(hex.length);
      });
      // each instance heard the other's updates over Redis (GET /metrics: hearth_yjs_updates_heard_total)
      expect(a.server.app.crdt.totals().heard).toBeGreaterThan(0);
      expect(b.server.app.crdt.totals().heard).toBeGreaterThan(0);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it("stores both instances' edits to one room without a flush run again: a flush waits on the document row's lock (READ COMMITTED)", async () => {
    const onA = connectYjs(a.url, room('row-level'), keyParams(a));
    const onB = connectYjs(b.url, room('row-level'), keyParams(b));
    const retries = (t: TestServer) => {
      const engine = t.server.app.storage.engine;
      return engine.kind === 'postgres' ? engine.retries() : 0;
    };
    try {
      await Promise.all([onA.synced, onB.synced]);
      const before = retries(a) + retries(b);
      // rounds in which both instances flush at once, so that their appends to the one row meet; fewer than the 200
      // stored updates that start a compaction (a unit of its own, SERIALIZABLE)
      for (let i = 0; i < 60; i++) {
        onA.doc.getText('default').insert(0, 'a');
        onB.doc.getText('default').insert(0, 'b');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await eventually(async () => {
        expect(textOf(onA)).toBe(textOf(onB));
        expect(textOf(onA)).toHaveLength(120);
        expect((await storedLog('row-level')).text).toBe(textOf(onA));
      });
      expect(retries(a) + retries(b) - before).toBe(0);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('a REST read on one instance sees what a client of the other wrote, and a REST write reaches the other instance', async () => {
    const onA = connectYjs(a.url, room('rest'), keyParams(a));
    const onB = connectYjs(b.url, room('rest'), keyParams(b));
    try {
      await Promise.all([onA.synced, onB.synced]);
      onA.doc.getText('default').insert(0, 'typed on a');
      await eventually(() => expect(textOf(onB)).toBe('typed on a'));
      const read = await b.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'rest' });
      expect(dataOf<Array<{ data: unknown }>>(read).map((editor) => editor.data)).toEqual(['typed on a']);
      expect(
        (await b.callK('/v2/crdt/update', { organizationId: 'acme', documentId: 'doc', editorId: 'rest', type: 'text', data: 'set through b' })).status,
      ).toBe(200);
      await eventually(() => expect(textOf(onB)).toBe('set through b'));
      await eventually(() => expect(textOf(onA)).toBe('set through b'));
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('presence crosses instances, joins late, and leaves when its client does', async () => {
    const onA = connectYjs(a.url, room('presence'), keyParams(a));
    await onA.synced;
    onA.provider.awareness.setLocalStateField('user', 'ann');
    // joins after ann set her presence: learns it from the other instance
    const onB = connectYjs(b.url, room('presence'), keyParams(b));
    try {
      await onB.synced;
      await eventually(() => expect((onB.provider.awareness.getStates().get(onA.doc.clientID) as { user?: string })?.user).toBe('ann'));
      onB.provider.awareness.setLocalStateField('user', 'bob');
      await eventually(() => expect((onA.provider.awareness.getStates().get(onB.doc.clientID) as { user?: string })?.user).toBe('bob'));
      onA.close();
      await eventually(() => expect(onB.provider.awareness.getStates().has(onA.doc.clientID)).toBe(false));
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('an access change made through one instance closes a connection held by the other', async () => {
    const token = dataOf<UserTokenAnswer>(await a.callK('/v2/auth/generate_token', { userId: 'ed' })).token;
    const onB = connectYjs(b.url, room('access'), { apiKey: b.credentials.apiKey, token });
    try {
      await onB.synced;
      const closed = new Promise<number>((resolve) => onB.provider.ws?.addEventListener('close', (event) => resolve((event as { code: number }).code)));
      expect((await a.callK('/v2/users/delete', { organizationId: 'acme', userIds: ['ed'] })).status).toBe(200);
      expect(await closed).toBe(4403);
    } finally {
      onB.close();
    }
  });

  it('a room removed through one instance is dropped by the other, whose clients are closed', async () => {
    await a.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'gone', type: 'text', data: 'x' });
    const onB = connectYjs(b.url, room('gone'), keyParams(b));
    try {
      await onB.synced;
      const closed = new Promise<number>((resolve) => onB.provider.ws?.addEventListener('close', (event) => resolve((event as { code: number }).code)));
      expect((await a.callK('/v2/crdt/delete', { organizationId: 'acme', documentId: 'doc', editorIds: ['gone'] })).status).toBe(200);
      expect(await closed).toBe(4404);
    } finally {
      onB.close();
    }
  });

  // last: the reset wipes the key's organizations, users and rooms the tests above use
  it("a reset through one instance closes the other's editors with 1012, which the stock provider retries (issue 42)", async () => {
    const onB = connectYjs(b.url, room('reset'), keyParams(b));
    const closes: number[] = [];
    let syncs = 0;
    onB.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? -1));
    onB.provider.on('sync', (synced: boolean) => synced && syncs++);
    let onA: ReturnType<typeof connectYjs> | undefined;
    try {
      await onB.synced;
      const cookie = await adminCookie(a);
      const reset = await fetch(`${a.url}/admin/api/data/reset`, {
        method: 'POST',
        headers: { cookie, 'x-hearth-ui': '1' },
        body: JSON.stringify({ apiKey: a.credentials.apiKey, confirm: 'reset' }),
      });
      expect(reset.status).toBe(200);
      await eventually(() => expect(closes).toEqual([1012]), 10_000);
      await eventually(() => expect(syncs).toBe(2), 10_000);
      // live again: an edit by a client of the other instance reaches it
      onA = connectYjs(a.url, room('reset'), keyParams(a));
      await onA.synced;
      onA.doc.getText('default').insert(0, 'after the reset ');
      await eventually(() => expect(textOf(onB)).toContain('after the reset '), 10_000);
    } finally {
      onA?.close();
      onB.close();
    }
  });
});
