// Auth: the registry-generated refusals of missing, wrong, other-workspace and other-API-key credentials for
// every operation are test/api/credentials.test.ts, which this suite's config runs too. Here: a user token
// (/v2/auth/generate_token) whose role on the document is viewer cannot write over y-websocket, neither with the
// standard client nor with hand-made protocol messages: nothing of it reaches storage or another client, while
// an editor's token writes.
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

/** crdt/get's data for the text editors here. */
interface TextItem {
  data: string;
  lastUpdatedBy: string;
}

let t: TestServer;
const ORG = 'auth-org';
const DOC = 'doc';
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: ORG,
    createOrganization: true,
    documents: [{ documentId: DOC, accessType: 'restricted' }],
  });
  await t.callK('/v2/users/add', {
    organizationId: ORG,
    documentId: DOC,
    users: [
      { userId: 'ed', accessRole: 'editor' },
      { userId: 'vi', accessRole: 'viewer' },
    ],
  });
});
afterAll(() => t.close());

const tokenOf = async (userId: string) => dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId })).token;
const userParams = async (userId: string) => ({ apiKey: t.credentials.apiKey, token: await tokenOf(userId) });
const room = (editorId: string) => ({ organizationId: ORG, documentId: DOC, editorId });
const storedRow = async (editorId: string) => dataOf<TextItem[]>(await t.callK('/v2/crdt/get', room(editorId)))[0]!;
const logLength = (editorId: string) =>
  (
    sqliteEngineOf(t.server.app.storage)
      .main.sqlite.prepare('select count(*) as n from crdt_updates where organization_id = ? and document_id = ? and editor_id = ?')
      .get(ORG, DOC, editorId) as { n: number }
  ).n;

const syncMessage = (write: (encoder: encoding.Encoder) => void) => {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  write(encoder);
  return encoding.toUint8Array(encoder);
};

describe('auth: a viewer token cannot write over y-websocket', () => {
  it("drops a viewer's edits while an editor's go through, and no other client sees them", async () => {
    await t.callK('/v2/crdt/add', { ...room('roles'), type: 'text', data: 'base' });
    const logBefore = logLength('roles');
    const editor = connectYjs(t.url, room('roles'), await userParams('ed'));
    // a third client with the API key's own credentials records whatever the server broadcasts
    const witness = connectYjs(t.url, room('roles'), { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    const seenByWitness: string[] = [];
    witness.doc.getText('content').observe(() => seenByWitness.push(witness.doc.getText('content').toString()));
    const viewer = connectYjs(t.url, room('roles'), await userParams('vi'));
    try {
      await Promise.all([editor.synced, witness.synced, viewer.synced]);
      viewer.doc.getText('content').insert(0, 'VIEWER ');
      // the barrier: the editor's edit, made after the viewer's, reaches the witness, the viewer and storage
      editor.doc.getText('content').insert(4, ' EDITOR');
      await eventually(() => expect(witness.doc.getText('content').toString()).toBe('base EDITOR'));
      await eventually(() => expect(viewer.doc.getText('content').toString()).toContain(' EDITOR'));
      const row = await storedRow('roles');
      expect(row.data).toBe('base EDITOR');
      expect(row.lastUpdatedBy).toBe('ed');
      expect(editor.doc.getText('content').toString()).toBe('base EDITOR');
      expect(seenByWitness.some((s) => s.includes('VIEWER'))).toBe(false);
      expect(logLength('roles') - logBefore).toBe(1);
      console.log(
        `auth: viewer token over y-websocket: 1 edit sent, 0 stored, 0 broadcast (a third client saw ${seenByWitness.length} changes, none with the viewer's text); editor token: 1 edit sent, 1 stored (lastUpdatedBy ${row.lastUpdatedBy})`,
      );
    } finally {
      editor.close();
      witness.close();
      viewer.close();
    }
  });

  it('drops hand-made update and sync-step-2 messages from a viewer and keeps serving it', async () => {
    await t.callK('/v2/crdt/add', { ...room('raw'), type: 'text', data: 'base' });
    const logBefore = logLength('raw');
    const watcher = connectYjs(t.url, room('raw'), { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    await watcher.synced;
    const forged = new Y.Doc();
    Y.applyUpdate(forged, Y.encodeStateAsUpdate(watcher.doc));
    const stateBefore = Y.encodeStateVector(forged);
    forged.getText('content').insert(0, 'FORGED ');
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/yjs/${ORG}/${DOC}/raw?apiKey=${t.credentials.apiKey}&token=${await tokenOf('vi')}`);
    const received: Buffer[] = [];
    ws.on('message', (data: Buffer) => received.push(data));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    try {
      ws.send(syncMessage((e) => syncProtocol.writeUpdate(e, Y.encodeStateAsUpdate(forged, stateBefore))));
      ws.send(syncMessage((e) => syncProtocol.writeSyncStep2(e, forged)));
      // a step 1 sent after them is answered: the server read what came before and kept the connection
      const answersBefore = received.length;
      ws.send(syncMessage((e) => syncProtocol.writeSyncStep1(e, new Y.Doc())));
      await eventually(() => expect(received.length).toBeGreaterThan(answersBefore));
      // an editor's change made after them is what storage and the watcher have
      await t.callK('/v2/crdt/update', { ...room('raw'), type: 'text', data: 'base+rest' });
      await eventually(() => expect(watcher.doc.getText('content').toString()).toBe('base+rest'));
      expect((await storedRow('raw')).data).toBe('base+rest');
      expect(logLength('raw') - logBefore).toBe(1);
      expect(ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      ws.close();
      watcher.close();
    }
  });

  it('refuses a viewer the creation of a document that does not exist', async () => {
    const token = await tokenOf('vi');
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/yjs/${ORG}/${DOC}/never-created?apiKey=${t.credentials.apiKey}&token=${token}`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        resolve(101);
        ws.close();
      });
      ws.on('error', () => undefined);
    });
    expect(status).toBe(404);
    const scope = (await t.server.app.storage.keys.scopeFor(t.credentials.apiKey))!;
    expect(await t.server.app.crdt.find(scope, { organizationId: ORG, documentId: DOC, editorId: 'never-created' })).toBeUndefined();
  });
});
