import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { adminCookie } from '../helpers/admin.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
  await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [{ folderId: 'legal', folderName: 'Legal', accessType: 'restricted' }],
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    folderId: 'legal',
    documents: [{ documentId: 'contract', documentName: 'Contract' }],
  });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'readme', documentName: 'Readme' }] });
  // pat is a member of the organization; vic only has a viewer role on the legal folder
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'pat', name: 'Pat' }] });
  await t.callK('/v2/auth/permissions/add', {
    user: { userId: 'vic' },
    permissions: { resources: [{ type: 'folder', id: 'legal', organizationId: 'acme', accessRole: 'viewer' }] },
  });
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'lawyers', groupName: 'Lawyers' }] });
  await t.callK('/v1/organizations/usergroups/users/add', { organizationId: 'acme', organizationUserGroupId: 'lawyers', userIds: ['pat'] });
});
afterAll(() => t.close());

const browse = (what: string, params: Record<string, string>) =>
  fetch(`${t.url}/admin/api/browse/${what}?${new URLSearchParams(params)}`, { headers: { cookie } });

describe('admin data browser', () => {
  it('lists organizations, the folder tree with documents, and memberships', async () => {
    const orgs = await (await browse('organizations', { apiKey: t.credentials.apiKey })).json();
    expect(orgs.items.map((o: any) => o.id)).toEqual(['acme']);
    const org = await (await browse('organization', { apiKey: t.credentials.apiKey, organizationId: 'acme' })).json();
    expect(org.folders).toEqual([expect.objectContaining({ id: 'legal', name: 'Legal', accessType: 'restricted' })]);
    expect(org.documents.map((d: any) => d.id)).toEqual(['contract', 'readme']);
    expect(org.documents[0].folderId).toBe('legal');
    expect(org.members).toContainEqual(expect.objectContaining({ userId: 'vic', level: 'folder', resourceId: 'legal', accessRole: 'viewer' }));
    expect(org.members).toContainEqual(expect.objectContaining({ userId: 'pat', level: 'organization', resourceId: 'acme' }));
    expect(org.groups).toEqual([{ id: 'lawyers', name: 'Lawyers', userIds: ['pat'] }]);
  });

  it('explains who can open a document and why, also for a user asked about by id', async () => {
    const access = await (await browse('access', { apiKey: t.credentials.apiKey, organizationId: 'acme', documentId: 'contract', userId: 'zed' })).json();
    const vic = access.users.find((u: any) => u.userId === 'vic');
    expect(vic).toMatchObject({ name: null, access: true, accessRole: 'viewer' });
    expect(vic.reasons.join(' ')).toContain('folder "legal"');
    // an organization member without a role on the restricted folder cannot open its documents
    const pat = access.users.find((u: any) => u.userId === 'pat');
    expect(pat).toMatchObject({ name: 'Pat', access: false });
    expect(pat.reasons.length).toBeGreaterThan(0);
    const zed = access.users.find((u: any) => u.userId === 'zed');
    expect(zed).toMatchObject({ access: false, accessRole: null });
    expect(zed.reasons.length).toBeGreaterThan(0);
  });

  it("refuses another workspace's key and requests without a session", async () => {
    const other = await createWorkspace(t);
    expect((await browse('organizations', { apiKey: other.apiKey })).status).toBe(404);
    expect(
      (
        await fetch(`${t.url}/admin/api/webhooks/delivery?${new URLSearchParams({ apiKey: other.apiKey, messageId: 'msg_x', endpointId: 'ep_x' })}`, {
          headers: { cookie },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await fetch(`${t.url}/admin/api/webhooks/delivery?${new URLSearchParams({ apiKey: t.credentials.apiKey, messageId: 'msg_x', endpointId: 'ep_x' })}`, {
          headers: { cookie },
        })
      ).status,
    ).toBe(404);
    expect((await fetch(`${t.url}/admin/api/browse/organizations?apiKey=${t.credentials.apiKey}`)).status).toBe(401);
  });

  it("answers what a user can open in their organizations, with the access resolver's role and reasons, and their groups", async () => {
    const get = (params: Record<string, string>) => fetch(`${t.url}/admin/api/user/access?${new URLSearchParams(params)}`, { headers: { cookie } });
    const pat = await (await get({ apiKey: t.credentials.apiKey, userId: 'pat' })).json();
    // the restricted folder's contract is not open to an organization member
    expect(pat).toEqual({
      documents: [{ organizationId: 'acme', documentId: 'readme', name: 'Readme', accessRole: 'editor', accessType: 'public', reasons: expect.any(Array) }],
      groups: [{ organizationId: 'acme', id: 'lawyers', name: 'Lawyers' }],
      checked: 2,
      truncated: false,
    });
    const permissions = (await t.callK('/v2/auth/permissions/get', { organizationId: 'acme', userIds: ['pat', 'vic'], documentIds: ['readme', 'contract'] }))
      .body as { result: { data: Record<string, { documents: Record<string, { reasons: string[] }> }> } };
    expect(pat.documents[0].reasons).toEqual(permissions.result.data.pat?.documents.readme?.reasons);
    // vic's folder role opens the contract (the public readme is open to every user of the key)
    const vic = await (await get({ apiKey: t.credentials.apiKey, userId: 'vic' })).json();
    expect(vic.documents.map((d: { documentId: string; accessRole: string; reasons: string[] }) => [d.documentId, d.accessRole, d.reasons])).toEqual(
      ['contract', 'readme'].map((id) => {
        const entry = permissions.result.data.vic?.documents[id] as { accessRole?: string; reasons: string[] };
        return [id, entry.accessRole, entry.reasons];
      }),
    );
    expect(vic.documents[0].accessRole).toBe('viewer');
    expect(vic.groups).toEqual([]);
    expect((await get({ apiKey: t.credentials.apiKey, userId: 'nobody' })).status).toBe(404);
    const missing = await get({ apiKey: t.credentials.apiKey });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.status).toBe('INVALID_ARGUMENT');
  });

  it('answers where a user is connected now: the documents of their websockets, read or write, with the presence they set', async () => {
    const get = async (userId: string) =>
      (await fetch(`${t.url}/admin/api/user/presence?${new URLSearchParams({ apiKey: t.credentials.apiKey, userId })}`, { headers: { cookie } })).json();
    expect(await get('pat')).toEqual({ documents: [] });
    const token = async (userId: string) => ({
      apiKey: t.credentials.apiKey,
      token: dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId })).token,
    });
    const room = { organizationId: 'acme', documentId: 'readme', editorId: 'body' };
    // a viewer opens a document that has content (an empty one it may not make)
    await t.callK('/v2/crdt/add', { ...room, documentId: 'contract', type: 'text', data: 'Terms' });
    // pat edits the readme (twice: two tabs), vic only reads the contract; a client without a user is no one's
    const tabs = [connectYjs(t.url, room, await token('pat')), connectYjs(t.url, room, await token('pat'))];
    const reader = connectYjs(t.url, { ...room, documentId: 'contract' }, await token('vic'));
    const keyOnly = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken });
    try {
      await Promise.all([...tabs, reader, keyOnly].map((c) => c.synced));
      tabs[0]!.provider.awareness.setLocalStateField('user', { name: 'Pat', cursor: 3 });
      // a state too large to show as it is is named by its size
      tabs[1]!.provider.awareness.setLocalStateField('blob', 'x'.repeat(5_000));
      await eventually(async () =>
        expect(await get('pat')).toEqual({
          documents: [
            {
              ...room,
              connections: 2,
              writable: true,
              states: expect.arrayContaining([
                { user: { name: 'Pat', cursor: 3 } },
                { omitted: expect.stringMatching(/^a presence state of 50\d\d characters$/) },
              ]),
            },
          ],
        }),
      );
      // a viewer shares its presence too
      reader.provider.awareness.setLocalStateField('user', { name: 'Vic' });
      await eventually(async () =>
        expect((await get('vic')).documents).toEqual([
          { ...room, documentId: 'contract', connections: 1, writable: false, states: [{ user: { name: 'Vic' } }] },
        ]),
      );
      // closed: gone from the answer
      for (const c of tabs) c.close();
      await eventually(async () => expect(await get('pat')).toEqual({ documents: [] }));
    } finally {
      for (const c of [...tabs, reader, keyOnly]) c.close();
    }
  });
});
