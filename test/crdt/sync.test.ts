import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startCliServer } from '../helpers/cli.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { apiKeyHeaders, call, dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { createCrdtStore } from '../../server/crdt/store.ts';
import { connectYjs, upgradeAnswer, upgradeStatus as upgradeWebsocket } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

/** crdt/get's data: one item per editor, its content decoded by type. */
interface CrdtItem {
  data: unknown;
  lastUpdatedBy?: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ crdtIdleMs: 200 });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc', accessType: 'restricted' }],
  });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    documentId: 'doc',
    users: [
      { userId: 'ed', accessRole: 'editor' },
      { userId: 'vi', accessRole: 'viewer' },
    ],
  });
});
afterAll(() => t.close());

const room = (editorId: string) => ({ organizationId: 'acme', documentId: 'doc', editorId });
const server = () => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
const userToken = async (userId: string) => ({
  apiKey: t.credentials.apiKey,
  token: dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId })).token,
});

/** The HTTP status of an upgrade to `path`: a refusal's, or 101. */
const upgradeStatus = (path: string) => upgradeWebsocket(t.url, path);

describe('y-websocket sync', () => {
  it('syncs two clients live and stores what they type', async () => {
    const a = connectYjs(t.url, room('live'), server());
    const b = connectYjs(t.url, room('live'), server());
    try {
      await Promise.all([a.synced, b.synced]);
      a.doc.getText('content').insert(0, 'hello from a');
      await eventually(() => expect(b.doc.getText('content').toString()).toBe('hello from a'));
      b.doc.getText('content').insert(0, '> ');
      await eventually(() => expect(a.doc.getText('content').toString()).toBe('> hello from a'));
      const stored = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'live' });
      expect(dataOf<CrdtItem[]>(stored)[0]!.data).toBe('> hello from a');
    } finally {
      a.close();
      b.close();
    }
  });

  it('opens a new room to many clients at once: every one syncs on its first connection, none is closed', async () => {
    // Each upgrade finds no room and creates it; the first row stands and the others open it. Before, the others
    // were refused (503), and a create that failed dropped the room the first client had opened (4404).
    // 8 clients of one room, and 2 of each of 30 more rooms, all at once
    const clients = Array.from({ length: 8 }, () => connectYjs(t.url, room('opened-at-once'), server()));
    const pairs = Array.from({ length: 60 }, (_, i) => connectYjs(t.url, room(`opened-in-pairs-${i >> 1}`), server()));
    const closes: number[] = [];
    for (const client of [...clients, ...pairs]) client.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? 0));
    try {
      await Promise.all([...clients, ...pairs].map((client) => client.synced));
      for (const [i, client] of pairs.entries()) if (i % 2 === 0) client.doc.getText('content').insert(0, `room ${i >> 1}`);
      clients[0]!.doc.getText('content').insert(0, 'for all');
      await eventually(() => expect(pairs.map((client) => client.doc.getText('content').toString())).toEqual(pairs.map((_, i) => `room ${i >> 1}`)));
      await eventually(() => expect(clients.map((client) => client.doc.getText('content').toString())).toEqual(clients.map(() => 'for all')));
      expect(closes).toEqual([]);
    } finally {
      for (const client of [...clients, ...pairs]) client.close();
    }
  });

  it('shares awareness between clients', async () => {
    const a = connectYjs(t.url, room('aware'), server());
    const b = connectYjs(t.url, room('aware'), server());
    try {
      await Promise.all([a.synced, b.synced]);
      a.provider.awareness.setLocalStateField('user', { name: 'Ann' });
      await eventually(() =>
        expect([...b.provider.awareness.getStates().values()].some((s) => (s as { user?: { name: string } }).user?.name === 'Ann')).toBe(true),
      );
    } finally {
      a.close();
      b.close();
    }
  });

  it('lets a user token edit as an editor, and keeps a viewer read-only', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'roles', type: 'text', data: 'base' });
    const editor = connectYjs(t.url, room('roles'), await userToken('ed'));
    const viewer = connectYjs(t.url, room('roles'), await userToken('vi'));
    try {
      await Promise.all([editor.synced, viewer.synced]);
      expect(viewer.doc.getText('content').toString()).toBe('base');
      viewer.doc.getText('content').insert(0, 'VIEWER ');
      editor.doc.getText('content').insert(4, ' EDITOR');
      await eventually(() => expect(viewer.doc.getText('content').toString()).toContain(' EDITOR'));
      const stored = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'roles' });
      expect(dataOf<CrdtItem[]>(stored)[0]!.data).toBe('base EDITOR');
      expect(dataOf<CrdtItem[]>(stored)[0]!.lastUpdatedBy).toBe('ed');
    } finally {
      editor.close();
      viewer.close();
    }
  });

  it('closes a connection that sends an update Yjs refuses (1003), without a trace on stderr; the document is unharmed', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'bad-update', type: 'text', data: 'kept' });
    const stderr = vi.spyOn(console, 'error');
    try {
      const { apiKey, authToken } = server();
      const ws = new WebSocket(
        `${t.url.replace(/^http/, 'ws')}/yjs/acme/doc/bad-update?apiKey=${encodeURIComponent(apiKey)}&authToken=${encodeURIComponent(authToken)}`,
      );
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      // sync (0), update (2), 5 bytes: one client, one struct, client 7, clock 0, then nothing where its kind is due
      ws.send(Uint8Array.from([0, 2, 5, 1, 1, 7, 0, 0xff]));
      expect(await closed).toBe(1003);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'bad-update' }))[0]!.data).toBe('kept');
  });

  it('refuses bad credentials, users without access, and malformed paths', async () => {
    const k = t.credentials.apiKey;
    expect(await upgradeStatus(`/yjs/acme/doc/x?apiKey=${k}&authToken=wrong`)).toBe(403);
    expect(await upgradeStatus(`/yjs/acme/doc/x`)).toBe(401);
    expect(await upgradeStatus(`/yjs/acme/doc/x?apiKey=${k}&token=not-a-jwt`)).toBe(403);
    const outsider = await userToken('outsider');
    expect(await upgradeStatus(`/yjs/acme/doc/x?apiKey=${k}&token=${outsider.token}`)).toBe(403);
    expect(await upgradeStatus(`/yjs/acme/doc?apiKey=${k}&authToken=${t.credentials.authToken}`)).toBe(400);
    const other = await createWorkspace(t);
    // another key's token for this key's id
    expect(await upgradeStatus(`/yjs/acme/doc/x?apiKey=${k}&authToken=${other.authToken}`)).toBe(403);
  });

  it('reads the room ids as REST does: trimmed, not blank, at most 256 characters', async () => {
    const padded = connectYjs(t.url, { organizationId: ' acme ', documentId: 'doc\t', editorId: ' trimmed' }, server());
    try {
      await padded.synced;
      padded.doc.getText('content').insert(0, 'typed in a padded room');
      await eventually(async () => {
        const stored = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'trimmed' });
        expect(dataOf<CrdtItem[]>(stored)[0]?.data).toBe('typed in a padded room');
      });
    } finally {
      padded.close();
    }
    const creds = `apiKey=${t.credentials.apiKey}&authToken=${t.credentials.authToken}`;
    expect(await upgradeAnswer(t.url, `/yjs/acme/%20%20/x?${creds}`)).toEqual({ status: 400, body: 'documentId must not be empty.' });
    expect(await upgradeStatus(`/yjs/acme/doc/${'e'.repeat(257)}?${creds}`)).toBe(400);
    expect(await upgradeStatus(`/yjs/acme/doc/${'e'.repeat(256)}?${creds}`)).toBe(101);
  });

  it('compacts the update log into a snapshot and reloads the same content', async () => {
    const client = connectYjs(t.url, room('many'), server());
    try {
      await client.synced;
      const text = client.doc.getText('content');
      const scope = (await t.server.app.storage.keys.scopeFor(t.credentials.apiKey))!;
      const stored = async () => {
        const found = await t.server.app.crdt.find(scope, { organizationId: 'acme', documentId: 'doc', editorId: 'many' });
        return found && `${found.updateCount}:${found.snapshot?.length ?? 0}`;
      };
      // paced: updates arriving in one event-loop turn are stored as one merged row, and this test needs many rows;
      // each update is stored (the stored row changed: one more update, or a compaction) before the next is made
      for (let i = 0; i < 450; i++) {
        const before = await stored();
        text.insert(text.length, `${i % 10}`);
        await eventually(async () => expect(await stored()).not.toBe(before), 5_000, 2);
      }
      const expected = text.toString();
      await eventually(async () => {
        const res = await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'many' });
        expect(dataOf<CrdtItem[]>(res)[0]!.data).toBe(expected);
      });
      // compacted once the document is quiet (past 200 updates; not while they arrive)
      await eventually(async () => {
        const row = await t.server.app.crdt.find(scope, { organizationId: 'acme', documentId: 'doc', editorId: 'many' });
        expect(row?.snapshot).toBeTruthy();
        expect(row!.updateCount).toBeLessThan(200);
      }, 10_000);
      // and loads the same from the snapshot and what is left of the log
      const fresh = createCrdtStore({ storage: t.server.app.storage, log: t.server.app.log });
      try {
        expect((await fresh.load(scope, { organizationId: 'acme', documentId: 'doc', editorId: 'many' }))!.doc.getText('content').toString()).toBe(expected);
      } finally {
        fresh.close();
      }
    } finally {
      client.close();
    }
  });

  it('unloads idle documents and loads them back intact', async () => {
    await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'idle', type: 'map', data: { k: 'v' } });
    await eventually(() => expect(t.server.app.crdt.liveCount()).toBe(0), 5000);
    expect(dataOf<CrdtItem[]>(await t.callK('/v2/crdt/get', { organizationId: 'acme', documentId: 'doc', editorId: 'idle' }))[0]!.data).toEqual({ k: 'v' });
  });
});

describe('durability', () => {
  it('keeps every update a client sent before SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-crdt-kill-'));
    try {
      let cli = await startCliServer(dataDir);
      const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      const client = connectYjs(cli.url, { organizationId: 'o', documentId: 'd', editorId: 'e' }, { apiKey: creds.apiKey, authToken: creds.authToken });
      await client.synced;
      const text = client.doc.getText('content');
      for (let i = 0; i < 300; i++) text.insert(text.length, 'x');
      // the server has the updates once a REST read shows them all
      await eventually(async () => {
        const res = await call(cli.url, '/v2/crdt/get', { organizationId: 'o', documentId: 'd', editorId: 'e' }, apiKeyHeaders(creds));
        expect(dataOf<CrdtItem[]>(res)[0]?.data).toBe('x'.repeat(300));
      });
      client.close();
      cli.child.kill('SIGKILL');
      await cli.exited;
      cli = await startCliServer(dataDir);
      try {
        const res = await call(cli.url, '/v2/crdt/get', { organizationId: 'o', documentId: 'd', editorId: 'e' }, apiKeyHeaders(creds));
        expect(dataOf<CrdtItem[]>(res)[0]!.data).toBe('x'.repeat(300));
      } finally {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
      const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
