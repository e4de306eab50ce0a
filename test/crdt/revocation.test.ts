// Issue 28, point 5: access changes reach open connections. A real y-websocket client opens a document; a change
// through the real HTTP interface takes its access away (closed: 4403, 4401 for credentials, 4404 for a deleted
// room) or lowers it to viewer (read-only: its edits are dropped, it still receives others'). Connections the
// change does not concern keep writing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

/** crdt/get's data for the text editors here: their text. */
interface TextItem {
  data: string;
}
/** workspace/authtoken/reset's data: the key's new auth token. */
interface AuthTokenAnswer {
  authToken: { token: string };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Client = ReturnType<typeof connectYjs> & { closes: number[] };
const clients: Client[] = [];
afterAll(() => {
  for (const c of clients) c.close();
});

/** Opens `organizationId/documentId/e` with `params`; records the codes of the server's closes. */
async function open(organizationId: string, documentId: string, params: Record<string, string>, baseUrl = t.url): Promise<Client> {
  const client = Object.assign(connectYjs(baseUrl, { organizationId, documentId, editorId: 'e' }, params), { closes: [] as number[] });
  client.provider.on('connection-close', (event: { code: number } | null) => {
    if (event) client.closes.push(event.code);
  });
  clients.push(client);
  await client.synced;
  return client;
}

const asUser = async (userId: string) => ({
  apiKey: t.credentials.apiKey,
  token: dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId })).token,
});
const asKey = () => ({ apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });

async function document(
  organizationId: string,
  documentId: string,
  accessType: 'public' | 'organizationPrivate' | 'restricted',
  extra: Record<string, unknown> = {},
) {
  expect(
    (await t.callK('/v2/organizations/documents/add', { organizationId, createOrganization: true, ...extra, documents: [{ documentId, accessType }] })).status,
  ).toBe(200);
  expect((await t.callK('/v2/crdt/add', { organizationId, documentId, editorId: 'e', type: 'text', data: '' })).status).toBe(200);
}

const stored = async (organizationId: string, documentId: string) =>
  dataOf<TextItem[]>(await t.callK('/v2/crdt/get', { organizationId, documentId, editorId: 'e' }))[0]!.data;

let marks = 0;
/** One edit by `client`; resolves once the server has it stored. */
async function writes(client: Client, organizationId: string, documentId: string) {
  const mark = `w${++marks};`;
  client.doc.getText('content').insert(0, mark);
  await eventually(async () => expect(await stored(organizationId, documentId)).toContain(mark));
}

/**
 * Whether the server drops `client`'s edits now: an edit, then an awareness mark that `observer` must see (the
 * server handles a connection's messages in order, so the edit was handled before), then the stored content.
 * Retried until the last edit is dropped: edits sent before the change reached the connection were not.
 */
async function editsDropped(client: Client, observer: Client, organizationId: string, documentId: string) {
  await eventually(
    async () => {
      const mark = `r${++marks};`;
      client.doc.getText('content').insert(0, mark);
      client.provider.awareness.setLocalStateField('mark', mark);
      await eventually(
        () => expect((observer.provider.awareness.getStates().get(client.doc.clientID) as { mark?: string } | undefined)?.mark).toBe(mark),
        2_000,
      );
      expect(await stored(organizationId, documentId)).not.toContain(mark);
    },
    5_000,
    50,
  );
}

const closedWith = (client: Client, code: number) => eventually(() => expect(client.closes).toEqual([code]));

describe('access changes reach open connections', () => {
  it("permissions/remove closes the user's connection (4403); another user's keeps writing", async () => {
    await document('acme', 'perm', 'restricted');
    for (const userId of ['gone', 'stays']) {
      const added = await t.callK('/v2/auth/permissions/add', {
        user: { userId },
        permissions: { resources: [{ type: 'document', id: 'perm', organizationId: 'acme', accessRole: 'editor' }] },
      });
      expect(added.status).toBe(200);
    }
    const gone = await open('acme', 'perm', await asUser('gone'));
    const stays = await open('acme', 'perm', await asUser('stays'));
    await writes(gone, 'acme', 'perm');
    const removed = await t.callK('/v2/auth/permissions/remove', {
      user: { userId: 'gone' },
      permissions: { resources: [{ type: 'document', id: 'perm', organizationId: 'acme' }] },
    });
    expect(removed.status).toBe(200);
    await closedWith(gone, 4403);
    await writes(stays, 'acme', 'perm');
    expect(stays.closes).toEqual([]);
  });

  it('a document access type change closes the connections it shuts out (4403)', async () => {
    await document('acme', 'typed', 'public');
    const outsider = await open('acme', 'typed', await asUser('outsider'));
    await writes(outsider, 'acme', 'typed');
    expect(
      (await t.callK('/v2/organizations/documents/access/update', { organizationId: 'acme', documentIds: ['typed'], accessType: 'restricted' })).status,
    ).toBe(200);
    await closedWith(outsider, 4403);
  });

  it('a folder access type change closes the connections to its documents it shuts out (4403)', async () => {
    expect(
      (await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'shared' }] })).status,
    ).toBe(200);
    await document('acme', 'in-folder', 'public', { folderId: 'shared' });
    const outsider = await open('acme', 'in-folder', await asUser('folder-outsider'));
    await writes(outsider, 'acme', 'in-folder');
    expect((await t.callK('/v2/organizations/folders/access/update', { organizationId: 'acme', folderIds: ['shared'], accessType: 'restricted' })).status).toBe(
      200,
    );
    await closedWith(outsider, 4403);
  });

  it('disabling a document makes its editors read-only; they still receive what others write', async () => {
    await document('acme', 'off', 'restricted');
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'off', users: [{ userId: 'writer', accessRole: 'editor' }] });
    const writer = await open('acme', 'off', await asUser('writer'));
    const observer = await open('acme', 'off', asKey());
    await writes(writer, 'acme', 'off');
    expect(
      (await t.callK('/v2/organizations/documents/access/disablestate/update', { organizationId: 'acme', documentIds: ['off'], disabled: true })).status,
    ).toBe(200);
    await editsDropped(writer, observer, 'acme', 'off');
    observer.doc.getText('content').insert(0, 'from the observer;');
    await eventually(() => expect(writer.doc.getText('content').toString()).toContain('from the observer;'));
    expect(writer.closes).toEqual([]);
  });

  it('disabling an organization makes the editors of its documents read-only', async () => {
    await document('acme-off', 'doc', 'restricted');
    await t.callK('/v2/users/add', { organizationId: 'acme-off', documentId: 'doc', users: [{ userId: 'writer', accessRole: 'editor' }] });
    const writer = await open('acme-off', 'doc', await asUser('writer'));
    const observer = await open('acme-off', 'doc', asKey());
    await writes(writer, 'acme-off', 'doc');
    expect((await t.callK('/v2/organizations/access/disablestate/update', { organizationIds: ['acme-off'], disabled: true })).status).toBe(200);
    await editsDropped(writer, observer, 'acme-off', 'doc');
    expect(writer.closes).toEqual([]);
  });

  it('a role lowered to viewer makes the connection read-only (users/update)', async () => {
    await document('acme', 'lowered', 'restricted');
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'lowered', users: [{ userId: 'demoted', accessRole: 'editor' }] });
    const demoted = await open('acme', 'lowered', await asUser('demoted'));
    const observer = await open('acme', 'lowered', asKey());
    await writes(demoted, 'acme', 'lowered');
    expect(
      (await t.callK('/v2/users/update', { organizationId: 'acme', documentId: 'lowered', users: [{ userId: 'demoted', accessRole: 'viewer' }] })).status,
    ).toBe(200);
    await editsDropped(demoted, observer, 'acme', 'lowered');
    expect(demoted.closes).toEqual([]);
  });

  it("users/delete closes the user's connections (4403)", async () => {
    await document('acme-users', 'private', 'organizationPrivate');
    await t.callK('/v2/users/add', { organizationId: 'acme-users', users: [{ userId: 'member', accessRole: 'editor' }] });
    const member = await open('acme-users', 'private', await asUser('member'));
    await writes(member, 'acme-users', 'private');
    expect((await t.callK('/v2/users/delete', { organizationId: 'acme-users', userIds: ['member'] })).status).toBe(200);
    await closedWith(member, 4403);
  });

  it("a document delete closes every connection to it, the key's own too (4404: the room is gone)", async () => {
    await document('acme', 'doomed', 'restricted');
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'doomed', users: [{ userId: 'writer', accessRole: 'editor' }] });
    const writer = await open('acme', 'doomed', await asUser('writer'));
    const backend = await open('acme', 'doomed', asKey());
    expect((await t.callK('/v2/organizations/documents/delete', { organizationId: 'acme', documentIds: ['doomed'] })).status).toBe(200);
    await closedWith(writer, 4404);
    await closedWith(backend, 4404);
  });

  // the organization's collaborative content goes with it (db/tenancy.ts): its rooms are deleted, as by
  // /v2/crdt/delete, so the connections close as a deleted room's do (4404), not as a revoked access (4403)
  it("an organization delete closes its documents' connections (4404: its rooms go with it)", async () => {
    await document('acme-doomed', 'doc', 'restricted');
    await t.callK('/v2/users/add', { organizationId: 'acme-doomed', documentId: 'doc', users: [{ userId: 'writer', accessRole: 'editor' }] });
    const writer = await open('acme-doomed', 'doc', await asUser('writer'));
    await writes(writer, 'acme-doomed', 'doc');
    expect((await t.callK('/v2/organizations/delete', { organizationIds: ['acme-doomed'] })).status).toBe(200);
    await closedWith(writer, 4404);
  });

  it('an auth token reset closes the connections opened with the old token (4401)', async () => {
    const other = await createWorkspace(t);
    const k = { apiKey: other.apiKey, authToken: other.authToken };
    const backend = await open('org', 'doc', k);
    backend.doc.getText('content').insert(0, 'before');
    const reset = await t.callW('/v2/workspace/authtoken/reset', { apiKey: other.apiKey }, other.headersW);
    expect(reset.status).toBe(200);
    await closedWith(backend, 4401);
    // the new token opens it again
    const again = await open('org', 'doc', { apiKey: other.apiKey, authToken: dataOf<AuthTokenAnswer>(reset).authToken.token });
    await eventually(() => expect(again.doc.getText('content').toString()).toBe('before'));
  });
});
