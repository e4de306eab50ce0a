// The data browser's paged endpoints over real HTTP: keyset pages that add up to the whole list in order, signed
// cursors tied to their query, filters, the command palette's search, answers that match shared/admin.ts, and
// error envelopes for bad input (never a 5xx). The query plans are checked to use the tables' indexes.
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityItem, documentItem, keyAnswer, membershipItem, notificationItem, organizationAnswer, organizationItem, page, searchAnswer, userAnswer, userItem } from '../../shared/admin.ts';
import { createAdminQueries } from '../../server/admin/queries.ts';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
  await t.callK('/v2/organizations/add', { organizations: ['o1', 'o2', 'o3', 'o4', 'o5'].map((id, i) => ({ organizationId: id, organizationName: `Org number ${i + 1}` })) });
  await t.callK('/v2/organizations/folders/add', { organizationId: 'o1', folders: [{ folderId: 'legal', folderName: 'Legal' }] });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'o1', documents: ['d1', 'd2', 'd3', 'd4'].map((id) => ({ documentId: id, documentName: `Design ${id}` })) });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'o1', folderId: 'legal', documents: [{ documentId: 'contract', documentName: 'Contract' }] });
  await t.callK('/v2/users/add', { organizationId: 'o1', users: ['ann', 'bob', 'cat'].map((id) => ({ userId: id, name: id.toUpperCase(), email: `${id}@example.com` })) });
  for (let i = 0; i < 3; i++) {
    const added = await t.callK('/v2/notifications/add', { organizationId: 'o1', documentId: 'd1', actionUser: { userId: 'ann', name: 'Ann' }, displayHeadlineMessageTemplate: `{actionUser} said ${i}`, displayBodyMessage: 'body', notifyUsers: [{ userId: 'bob' }] });
    if (added.status !== 200) throw new Error(JSON.stringify(added.body));
  }
  await t.callK('/v2/notifications/add', { organizationId: 'o1', documentId: 'd2', actionUser: { userId: 'cat' }, displayHeadlineMessageTemplate: 'on another document', displayBodyMessage: 'body', notifyUsers: [{ userId: 'ann' }] });
});
afterAll(() => t.close());

const get = (path: string, params: Record<string, string | number>, as = cookie) => fetch(`${t.url}/admin/api${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`, { headers: { cookie: as } });
const json = async (res: Response) => ({ status: res.status, body: await res.json() });
const apiKey = () => t.credentials.apiKey;

/** A list item as these tests read it (each list's schema is parsed where it matters). */
interface Row {
  id: string;
  headline: string;
  documentId: string | null;
  organizationId: string;
  userId: string;
  [field: string]: unknown;
}

/** Every page of a list, following the cursors. */
async function walk(path: string, params: Record<string, string | number>) {
  const items: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const { status, body } = await json(await get(path, { ...params, ...(cursor ? { cursor } : {}) }));
    expect(status).toBe(200);
    items.push(...body.items);
    cursor = body.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  return { items, pages };
}

describe('paged lists', () => {
  it('pages organizations by id in either direction, two at a time, adding up to the whole list', async () => {
    const up = await walk('/organizations', { apiKey: apiKey(), limit: 2 });
    expect(up.items.map((o) => o.id)).toEqual(['o1', 'o2', 'o3', 'o4', 'o5']);
    expect(up.pages).toBe(3);
    const down = await walk('/organizations', { apiKey: apiKey(), limit: 2, dir: 'desc' });
    expect(down.items.map((o) => o.id)).toEqual(['o5', 'o4', 'o3', 'o2', 'o1']);
    const first = await json(await get('/organizations', { apiKey: apiKey(), limit: 2 }));
    expect(page(organizationItem).parse(first.body).items).toHaveLength(2);
  });

  it('searches by id prefix or by a part of the name', async () => {
    expect((await walk('/organizations', { apiKey: apiKey(), q: 'o3' })).items.map((o) => o.id)).toEqual(['o3']);
    expect((await walk('/organizations', { apiKey: apiKey(), q: 'number 4' })).items.map((o) => o.id)).toEqual(['o4']);
    expect((await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', q: 'Design' })).items.map((d) => d.id)).toEqual(['d1', 'd2', 'd3', 'd4']);
    // LIKE's wildcards are the user's characters, not patterns
    expect((await walk('/organizations', { apiKey: apiKey(), q: '%' })).items).toEqual([]);
  });

  it('lists documents (of a folder too), users, memberships, notifications of the organization alone and activity', async () => {
    const docs = await json(await get('/documents', { apiKey: apiKey(), organizationId: 'o1', limit: 3 }));
    expect(page(documentItem).parse(docs.body).items.map((d) => d.id)).toEqual(['contract', 'd1', 'd2']);
    expect((await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', folderId: 'legal' })).items.map((d) => d.id)).toEqual(['contract']);
    const users = await json(await get('/users', { apiKey: apiKey() }));
    expect(page(userItem).parse(users.body).items.map((u) => [u.id, u.email])).toEqual([
      ['ann', 'ann@example.com'],
      ['bob', 'bob@example.com'],
      ['cat', 'cat@example.com'],
    ]);
    const members = await json(await get('/memberships', { apiKey: apiKey(), organizationId: 'o1', limit: 2 }));
    expect(page(membershipItem).parse(members.body).items.map((m) => m.userId)).toEqual(['ann', 'bob']);
    expect(members.body.nextCursor).not.toBeNull();
    const ofAnn = await walk('/memberships', { apiKey: apiKey(), userId: 'ann' });
    expect(ofAnn.items.map((m) => m.organizationId)).toEqual(['o1']);
    // the organization's notifications, with no document or user given: all four, of both documents
    const all = await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', limit: 3 });
    expect(all.items.map((n) => notificationItem.parse(n).headline).sort()).toEqual(['Ann said 0', 'Ann said 1', 'Ann said 2', 'on another document']);
    expect(all.items.find((n) => n.headline === 'on another document')?.documentId).toBe('d2');
    // a document's, newest first; a user's (as recipient)
    const ofDoc = await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', documentId: 'd1', dir: 'desc', limit: 2 });
    expect(ofDoc.items.map((n) => n.headline)).toEqual(['Ann said 2', 'Ann said 1', 'Ann said 0']);
    const recipients = (t.server.app.sqlite.prepare('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?').get(ofDoc.items[0]?.id) as { n: number }).n;
    expect(recipients).toBeGreaterThan(0);
    expect(ofDoc.items[0]?.recipients).toBe(recipients);
    expect((await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', userId: 'ann' })).items.map((n) => n.headline)).toEqual(['on another document']);
    const activity = await json(await get('/activity', { apiKey: apiKey(), organizationId: 'o1', dir: 'desc' }));
    expect(activity.status).toBe(200);
    for (const a of activity.body.items) activityItem.parse(a);
  });

  it('answers one organization, document or user with counts and 30 days of activity', async () => {
    const org = await json(await get('/organization', { apiKey: apiKey(), organizationId: 'o1' }));
    const o = organizationAnswer.parse(org.body);
    expect(o.counts).toMatchObject({ documents: 5, members: 3, notifications: 4 });
    expect(o.folders.map((f) => f.id)).toEqual(['legal']);
    expect(o.activity).toHaveLength(30);
    const doc = await json(await get('/document', { apiKey: apiKey(), organizationId: 'o1', documentId: 'contract' }));
    expect(doc.body.path).toEqual([{ id: 'legal', name: 'Legal' }]);
    expect(doc.body.counts.notifications).toBe(0);
    const user = await json(await get('/user', { apiKey: apiKey(), userId: 'bob' }));
    const toBob = (t.server.app.sqlite.prepare("SELECT count(*) AS n FROM notification_recipients WHERE user_id = 'bob'").get() as { n: number }).n;
    expect(toBob).toBeGreaterThanOrEqual(3);
    expect(userAnswer.parse(user.body)).toMatchObject({ user: { id: 'bob', name: 'BOB' }, organizations: ['o1'], notifications: toBob });
    const usage = keyAnswer.parse(await (await get('/key', { apiKey: apiKey() })).json());
    expect(usage.counts).toMatchObject({ organizations: 5, documents: 5, users: 3 });
    expect((await get('/organization', { apiKey: apiKey(), organizationId: 'nope' })).status).toBe(404);
    expect((await get('/user', { apiKey: apiKey(), userId: 'nobody' })).status).toBe(404);
  });
});

describe('cursors and refusals', () => {
  it('refuses a forged cursor and one made for another query, with INVALID_ARGUMENT', async () => {
    const first = await json(await get('/organizations', { apiKey: apiKey(), limit: 2 }));
    const cursor = first.body.nextCursor as string;
    const forged = await json(await get('/organizations', { apiKey: apiKey(), limit: 2, cursor: `${cursor.slice(0, -2)}xx` }));
    expect(forged).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } });
    // the same cursor with another search or direction, or on another list
    expect((await get('/organizations', { apiKey: apiKey(), limit: 2, cursor, q: 'o' })).status).toBe(400);
    expect((await get('/organizations', { apiKey: apiKey(), limit: 2, cursor, dir: 'desc' })).status).toBe(400);
    expect((await get('/users', { apiKey: apiKey(), limit: 2, cursor })).status).toBe(400);
  });

  it('answers bad input with an error envelope, another workspace\'s key with 404, no session with 401', async () => {
    for (const params of [{ apiKey: apiKey(), limit: 0 }, { apiKey: apiKey(), limit: 'many' }, { apiKey: apiKey(), dir: 'sideways' }, {}]) {
      const res = await json(await get('/organizations', params as Record<string, string>));
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    }
    expect((await get('/memberships', { apiKey: apiKey() })).status).toBe(400);
    const other = await createWorkspace(t);
    expect((await get('/organizations', { apiKey: other.apiKey })).status).toBe(404);
    expect((await get('/documents', { apiKey: other.apiKey, organizationId: 'o1' })).status).toBe(404);
    expect((await get('/organizations', { apiKey: apiKey() }, '')).status).toBe(401);
    // their session sees their key, not ours
    const theirs = await adminCookie(t, other.workspaceId);
    expect((await get('/organizations', { apiKey: apiKey() }, theirs)).status).toBe(404);
    expect((await get('/organizations', { apiKey: other.apiKey }, theirs)).status).toBe(200);
  });
});

describe('the command palette\'s search', () => {
  it('finds organizations, documents, folders, users, keys and webhook endpoints by id or name, exact ids first, within the workspace', async () => {
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    const endpoint = (await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'http://127.0.0.1:9/designhook', description: 'design hook' })).body.result.data.id as string;
    const found = searchAnswer.parse((await json(await get('/search', { q: 'Design' }))).body).items;
    expect(found.map((h) => [h.kind, h.id])).toEqual(expect.arrayContaining([['document', 'd1'], ['webhook', endpoint]]));
    const d1 = found.find((h) => h.id === 'd1')!;
    expect(d1.href).toBe(`/k/${apiKey()}/organizations/o1/documents/d1`);
    const exact = (await json(await get('/search', { q: 'o1' }))).body.items;
    expect(exact[0]).toMatchObject({ kind: 'organization', id: 'o1', href: `/k/${apiKey()}/organizations/o1` });
    expect((await json(await get('/search', { q: 'legal' }))).body.items).toContainEqual(expect.objectContaining({ kind: 'folder', id: 'legal', href: `/k/${apiKey()}/organizations/o1?folder=legal` }));
    expect((await json(await get('/search', { q: 'bob@example' }))).body.items).toContainEqual(expect.objectContaining({ kind: 'user', id: 'bob' }));
    expect((await json(await get('/search', { q: apiKey().slice(0, 6) }))).body.items[0]).toMatchObject({ kind: 'key', id: apiKey() });
    // another workspace finds none of it
    const other = await createWorkspace(t);
    expect((await json(await get('/search', { q: 'o1' }, await adminCookie(t, other.workspaceId)))).body.items).toEqual([]);
    expect((await get('/search', { q: '' })).status).toBe(400);
  });
});

describe('query plans', () => {
  it('pages every list on an index (no full scan of a table) when no search is given', async () => {
    const seen: string[] = [];
    const real = t.server.app.sqlite;
    // the driver, wrapped to note each statement's text (Hearth's own code runs as it is)
    const noting = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'prepare') return (text: string) => (seen.push(text), target.prepare(text));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }) as Database.Database;
    const q = createAdminQueries(noting);
    const page = { after: ['m', 'x'] as const, dir: 'asc' as const, limit: 50 };
    q.organizationsPage(apiKey(), undefined, { ...page, after: ['m'] });
    q.documentsPage(apiKey(), 'o1', undefined, undefined, { ...page, after: ['m'] });
    q.documentsPage(apiKey(), 'o1', 'legal', undefined, { ...page, after: ['m'] });
    q.usersPage(apiKey(), undefined, { ...page, after: ['m'] });
    q.membershipsPage(apiKey(), { organizationId: 'o1' }, { ...page, after: ['m', 'organization', 'o1'] });
    q.notificationsPage(apiKey(), 'o1', {}, { ...page, after: ['m'] });
    q.notificationsPage(apiKey(), 'o1', { documentId: 'd1' }, { ...page, after: [1, 'x'] });
    q.notificationsPage(apiKey(), 'o1', { userId: 'ann' }, { ...page, after: [1, 'x'] });
    q.activityPage(apiKey(), 'o1', {}, { ...page, after: [1, 'x'] });
    q.activityPage(apiKey(), 'o1', { documentId: 'd1' }, { ...page, after: [1, 'x'] });
    q.crdtPage(apiKey(), undefined, undefined, { ...page, after: ['a', 'b', 'c'] });
    expect(seen).toHaveLength(11);
    const scans: string[] = [];
    for (const text of seen) {
      const params = (text.match(/\?/g) ?? []).map(() => 'x');
      const plan = real.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as Array<{ detail: string }>;
      // the recipients' count per notification is a SEARCH on the primary key; only a SCAN of a table is a full read
      for (const step of plan) if (/^SCAN (organizations|documents|users|memberships|notifications|notification_recipients|activities|crdt_documents)\b/.test(step.detail) && !/USING (COVERING )?INDEX|PRIMARY KEY/.test(step.detail)) scans.push(`${step.detail} ← ${text.slice(0, 90)}`);
    }
    expect(scans).toEqual([]);
  });
});
