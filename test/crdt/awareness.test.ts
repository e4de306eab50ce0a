// Issue 28, point 6: a connection sets and removes only the awareness client ids it introduced. A read-only
// connection (a viewer token) shares its own presence, and cannot overwrite or remove another client's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs, yjsMessage } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
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
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'doc', editorId: 'e', type: 'text', data: 'x' });
});
afterAll(() => t.close());

const room = { organizationId: 'acme', documentId: 'doc', editorId: 'e' };
const userToken = async (userId: string) => ({
  apiKey: t.credentials.apiKey,
  token: dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId })).token,
});
type Client = ReturnType<typeof connectYjs>;
const stateOf = (observer: Client, clientId: number) => observer.provider.awareness.getStates().get(clientId) as { user?: string } | undefined;

/** An awareness update that says `clientId`'s state is `state`, with a clock past any the real client used. */
function forged(clientId: number, state: Record<string, unknown> | null): Uint8Array {
  const doc = new Y.Doc();
  doc.clientID = clientId;
  const awareness = new awarenessProtocol.Awareness(doc);
  for (let i = 0; i < 50; i++) awareness.setLocalState({ bump: i });
  awareness.setLocalState(state);
  const update = awarenessProtocol.encodeAwarenessUpdate(awareness, [clientId]);
  awareness.destroy();
  doc.destroy();
  return update;
}

/** `from`'s own presence, and once `observer` sees it, everything `from` sent before has been handled. */
async function mark(from: Client, observer: Client, user: string) {
  from.provider.awareness.setLocalStateField('user', user);
  await eventually(() => expect(stateOf(observer, from.doc.clientID)?.user).toBe(user));
}

describe('awareness ownership', () => {
  it("a viewer shares its own presence, and cannot overwrite or remove an editor's", async () => {
    const editor = connectYjs(t.url, room, await userToken('ed'));
    const viewer = connectYjs(t.url, room, await userToken('vi'));
    const observer = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    try {
      await Promise.all([editor.synced, viewer.synced, observer.synced]);
      await mark(editor, observer, 'Ann');
      viewer.provider.ws!.send(yjsMessage(1, null, forged(editor.doc.clientID, { user: 'Mallory' })));
      await mark(viewer, observer, 'Vic');
      expect(stateOf(observer, editor.doc.clientID)?.user).toBe('Ann');
      expect(stateOf(editor, editor.doc.clientID)?.user).toBe('Ann');
      viewer.provider.ws!.send(yjsMessage(1, null, forged(editor.doc.clientID, null)));
      await mark(viewer, observer, 'Vic again');
      expect(stateOf(observer, editor.doc.clientID)?.user).toBe('Ann');
    } finally {
      editor.close();
      viewer.close();
      observer.close();
    }
  });

  it("an editor cannot take over another connection's client id either; a new id becomes its own", async () => {
    const first = connectYjs(t.url, room, await userToken('ed'));
    const second = connectYjs(t.url, room, await userToken('ed'));
    const observer = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    try {
      await Promise.all([first.synced, second.synced, observer.synced]);
      await mark(first, observer, 'First');
      second.provider.ws!.send(yjsMessage(1, null, forged(first.doc.clientID, { user: 'Impostor' })));
      // an id nobody has introduced is the sender's (a tab's second editor, say)
      const extra = 2 ** 30 + 7;
      second.provider.ws!.send(yjsMessage(1, null, forged(extra, { user: 'Second, another view' })));
      await mark(second, observer, 'Second');
      expect(stateOf(observer, first.doc.clientID)?.user).toBe('First');
      expect(stateOf(observer, extra)?.user).toBe('Second, another view');
      // and when its connection leaves, that id leaves with it
      second.close();
      await eventually(() => expect(stateOf(observer, extra)).toBeUndefined());
      expect(stateOf(observer, first.doc.clientID)?.user).toBe('First');
    } finally {
      first.close();
      second.close();
      observer.close();
    }
  });
});
