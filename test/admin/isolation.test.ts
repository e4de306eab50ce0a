// The admin UI is signed in as one workspace: every admin route that takes an API key, an organization, a document,
// a room, a request, a mail or a webhook reaches that workspace's keys only. Workspace B's data is made here through
// the API; workspace A's session then asks for all of it by B's ids (and for B's organizations, documents and rooms
// under A's own key): each answer is a refusal, none holds anything of B, and B's data is as it was.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint } from '../helpers/webhooks.ts';

let t: TestServer;
let cookieA: string;
let cookieB: string;
let b: Awaited<ReturnType<typeof createWorkspace>>;
/** B's ids: unique, so that an answer holding one of them can only have it from B's data. */
const tag = randomUUID().slice(0, 8);
const ids = { organization: `borg-${tag}`, document: `bdoc-${tag}`, user: `buser-${tag}`, editor: `bed-${tag}`, folder: `bfold-${tag}` };
let endpointId = '';
let mailId = '';
let requestId = 0;

beforeAll(async () => {
  t = await startTestServer();
  cookieA = await adminCookie(t);
  b = await createWorkspace(t);
  cookieB = await adminCookie(t, b.workspaceId);
  const asB = async (path: string, data: unknown) => {
    const res = await t.callK(path, data, b.headersK);
    if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
    return res;
  };
  await asB('/v2/organizations/add', { organizations: [{ organizationId: ids.organization, organizationName: `B org ${tag}` }] });
  await asB('/v2/organizations/folders/add', { organizationId: ids.organization, folders: [{ folderId: ids.folder, folderName: `B folder ${tag}` }] });
  await asB('/v2/organizations/documents/add', {
    organizationId: ids.organization,
    folderId: ids.folder,
    documents: [{ documentId: ids.document, documentName: `B doc ${tag}` }],
  });
  await asB('/v2/users/add', { organizationId: ids.organization, users: [{ userId: ids.user, name: `B user ${tag}`, email: `${ids.user}@example.com` }] });
  await asB('/v2/notifications/add', {
    organizationId: ids.organization,
    documentId: ids.document,
    actionUser: { userId: ids.user },
    displayHeadlineMessageTemplate: `B said ${tag}`,
    displayBodyMessage: 'b',
    notifyUsers: [{ userId: ids.user }],
  });
  await asB('/v2/crdt/add', { organizationId: ids.organization, documentId: ids.document, editorId: ids.editor, type: 'text', data: `B text ${tag}` });
  endpointId = (await enableWithEndpoint(t, `http://127.0.0.1:9/b-${tag}`, { description: `B hook ${tag}` }, b.headersK)).id;
  await t.callPublic('/v2/workspace/email/send-login-link', { email: b.ownerEmail, continueUrl: `${t.url}/` });
  // what B's own session sees: its mail and its calls (A must see none of them)
  mailId = await eventually(async () => {
    const items = (await (await fetch(`${t.url}/admin/api/mail`, { headers: { cookie: cookieB } })).json()).items as Array<{ id: string }>;
    expect(items.length).toBeGreaterThan(0);
    return items[0]!.id;
  });
  requestId = await eventually(async () => {
    const items = (await (await fetch(`${t.url}/admin/api/requests`, { headers: { cookie: cookieB } })).json()).items as Array<{ id: number }>;
    expect(items.length).toBeGreaterThan(0);
    return items[0]!.id;
  });
  // A has data of its own, so that its lists are not empty
  await t.callK('/v2/organizations/documents/add', { organizationId: 'a-org', createOrganization: true, documents: [{ documentId: 'a-doc' }] });
});
afterAll(() => t.close());

/** Every answer A's session got, with what A sent, to look for B's data in. */
const answers: Array<{ sent: string; text: string }> = [];
async function asA(path: string, init: { query?: Record<string, string>; body?: unknown } = {}) {
  const url = `${t.url}/admin/api${path}${init.query ? `?${new URLSearchParams(init.query)}` : ''}`;
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const res = await fetch(
    url,
    body === undefined ? { headers: { cookie: cookieA } } : { method: 'POST', headers: { cookie: cookieA, 'x-hearth-ui': '1' }, body },
  );
  const text = await res.text();
  answers.push({ sent: `${decodeURIComponent(url)} ${body ?? ''}`, text });
  return { status: res.status, text };
}

describe("workspace A's admin session and workspace B's data", () => {
  it("refuses B's key on every route that takes one, with 404 (400 for the API explorer, as before)", async () => {
    const key = b.apiKey;
    const room = { apiKey: key, organizationId: ids.organization, documentId: ids.document, editorId: ids.editor };
    const gets: Array<[string, Record<string, string>]> = [
      ['/key', { apiKey: key }],
      ['/organizations', { apiKey: key }],
      ['/organization', { apiKey: key, organizationId: ids.organization }],
      ['/documents', { apiKey: key, organizationId: ids.organization }],
      ['/document', { apiKey: key, organizationId: ids.organization, documentId: ids.document }],
      ['/users', { apiKey: key }],
      ['/user', { apiKey: key, userId: ids.user }],
      ['/user/access', { apiKey: key, userId: ids.user }],
      ['/user/presence', { apiKey: key, userId: ids.user }],
      ['/memberships', { apiKey: key, organizationId: ids.organization }],
      ['/notifications', { apiKey: key, organizationId: ids.organization }],
      ['/activity', { apiKey: key, organizationId: ids.organization }],
      ['/crdt/page', { apiKey: key }],
      ['/crdt/history', room],
      ['/crdt/state', room],
      ['/crdt/export', room],
      ['/browse/organizations', { apiKey: key }],
      ['/browse/organization', { apiKey: key, organizationId: ids.organization }],
      ['/browse/access', { apiKey: key, organizationId: ids.organization, documentId: ids.document, userId: ids.user }],
      ['/webhooks/delivery', { apiKey: key, messageId: 'msg_x', endpointId }],
      ['/data/export', { apiKey: key }],
    ];
    for (const [path, query] of gets) expect([path, (await asA(path, { query })).status]).toEqual([path, 404]);
    const posts: Array<[string, unknown]> = [
      ['/crdt/restore', { ...room, seq: 1 }],
      ['/crdt/ticket', room],
      ['/webhooks/test', { apiKey: key, endpointId }],
      ['/data/reset', { apiKey: key, confirm: 'reset' }],
      [
        '/data/import',
        {
          apiKey: key,
          archive: {
            format: 'hearth-admin-export',
            version: 1,
            exportedAt: new Date().toISOString(),
            apiKey: key,
            tables: { organizations: [{ id: 'planted', name: 'planted' }] },
          },
        },
      ],
      ['/keys/state', { apiKey: key, disabled: true }],
    ];
    for (const [path, body] of posts) expect([path, (await asA(path, { body })).status]).toEqual([path, 404]);
    const call = await asA('/call', { body: { path: '/v2/organizations/get', apiKey: key, data: { organizationId: ids.organization } } });
    expect(call.status).toBe(400);
    expect(JSON.parse(call.text).error.message).toBe("Choose one of this workspace's API keys.");
  });

  it("finds none of B's organizations, documents or rooms under A's own key", async () => {
    const key = t.credentials.apiKey;
    expect((await asA('/organization', { query: { apiKey: key, organizationId: ids.organization } })).status).toBe(404);
    expect((await asA('/document', { query: { apiKey: key, organizationId: ids.organization, documentId: ids.document } })).status).toBe(404);
    expect((await asA('/user', { query: { apiKey: key, userId: ids.user } })).status).toBe(404);
    expect(
      (await asA('/crdt/history', { query: { apiKey: key, organizationId: ids.organization, documentId: ids.document, editorId: ids.editor } })).status,
    ).toBe(404);
    expect(
      (await asA('/crdt/ticket', { body: { apiKey: key, organizationId: ids.organization, documentId: ids.document, editorId: ids.editor } })).status,
    ).toBe(404);
    expect((await asA('/webhooks/test', { body: { apiKey: key, endpointId } })).status).toBe(404);
    for (const list of [
      asA('/documents', { query: { apiKey: key, organizationId: ids.organization } }),
      asA('/notifications', { query: { apiKey: key, organizationId: ids.organization } }),
      asA('/memberships', { query: { apiKey: key, organizationId: ids.organization } }),
    ]) {
      const { status, text } = await list;
      expect(status).toBe(200);
      expect(JSON.parse(text).items).toEqual([]);
    }
  });

  it("lists nothing of B's in the workspace-wide views, and refuses B's request and mail by id", async () => {
    for (const path of ['/overview', '/keys', '/crdt', '/requests', '/mail']) expect([path, (await asA(path)).status]).toEqual([path, 200]);
    for (const q of [tag, ids.organization, ids.document, ids.user, 'b-', b.apiKey.slice(0, 6)])
      expect(JSON.parse((await asA('/search', { query: { q } })).text).items).toEqual([]);
    expect((await asA(`/requests/${requestId}`)).status).toBe(404);
    expect((await asA(`/mail/${mailId}`)).status).toBe(404);
    const keys = JSON.parse((await asA('/keys')).text).items as Array<{ apiKey: string }>;
    expect(keys.map((k) => k.apiKey)).toEqual([t.credentials.apiKey]);
    const overview = JSON.parse((await asA('/overview')).text) as { workspaceId: string; counts: Record<string, number> };
    expect(overview.workspaceId).toBe(t.credentials.workspaceId);
    expect(overview.counts.webhookEndpoints).toBe(0);
  });

  it('answered nothing that holds B’s data, and left B’s data as it was', async () => {
    expect(answers.length).toBeGreaterThan(40);
    // B's names and contents, which A never sent; B's ids, which an answer may only repeat from its own request
    const data = [
      `B org ${tag}`,
      `B folder ${tag}`,
      `B doc ${tag}`,
      `B user ${tag}`,
      `${ids.user}@example.com`,
      `B said ${tag}`,
      `B text ${tag}`,
      `B hook ${tag}`,
      `b-${tag}`,
      b.workspaceId,
      b.ownerEmail,
    ];
    const named = [b.apiKey, ids.organization, ids.folder, ids.document, ids.user, ids.editor, endpointId, mailId];
    const leaks = answers.filter(({ sent, text }) => data.some((s) => text.includes(s)) || named.some((s) => text.includes(s) && !sent.includes(s)));
    expect(leaks).toEqual([]);
    // B's key is enabled, its data in place, its room and endpoint as made
    const org = await t.callK('/v2/organizations/get', { organizationIds: [ids.organization] }, b.headersK);
    expect(org.status).toBe(200);
    expect(JSON.stringify(org.body)).toContain(`B org ${tag}`);
    expect(JSON.stringify(org.body)).not.toContain('planted');
    const keyB = JSON.parse(await (await fetch(`${t.url}/admin/api/keys`, { headers: { cookie: cookieB } })).text()).items as Array<{
      apiKey: string;
      disabled: boolean;
    }>;
    expect(keyB).toEqual([expect.objectContaining({ apiKey: b.apiKey, disabled: false })]);
    const room = await fetch(
      `${t.url}/admin/api/crdt/export?${new URLSearchParams({ apiKey: b.apiKey, organizationId: ids.organization, documentId: ids.document, editorId: ids.editor })}`,
      { headers: { cookie: cookieB } },
    );
    expect(room.status).toBe(200);
    expect(await room.text()).toContain(`B text ${tag}`);
  });
});
