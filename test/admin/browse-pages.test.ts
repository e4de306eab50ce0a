// The data browser's paged endpoints over real HTTP: keyset pages that add up to the whole list in order, signed
// cursors tied to their query, filters, the command palette's search, answers that match shared/admin.ts, and
// error envelopes for bad input (never a 5xx). The query plans are checked to use the tables' indexes.
import type Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activityItem,
  documentItem,
  keyAnswer,
  mailAnswer,
  membershipItem,
  notificationItem,
  organizationAnswer,
  organizationItem,
  page,
  searchAnswer,
  userAnswer,
  userItem,
} from '../../shared/admin.ts';
import * as schema from '../../server/db/schema.ts';
import { inspectionRepo, type InspectionRepo } from '../../server/db/repos/inspection.ts';
import { tenantScope, workspaceScope } from '../../server/db/scope.ts';
import { adminCookie } from '../helpers/admin.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import type { WorkspaceAnswer } from '../helpers/answers.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

/** advancedwebhook/endpoints/create's data. */
interface EndpointAnswer {
  id: string;
}

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
  await t.callK('/v2/organizations/add', {
    organizations: ['o1', 'o2', 'o3', 'o4', 'o5'].map((id, i) => ({ organizationId: id, organizationName: `Org number ${i + 1}` })),
  });
  await t.callK('/v2/organizations/folders/add', { organizationId: 'o1', folders: [{ folderId: 'legal', folderName: 'Legal' }] });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'o1',
    documents: ['d1', 'd2', 'd3', 'd4'].map((id) => ({ documentId: id, documentName: `Design ${id}` })),
  });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'o1',
    folderId: 'legal',
    documents: [{ documentId: 'contract', documentName: 'Contract' }],
  });
  await t.callK('/v2/users/add', {
    organizationId: 'o1',
    users: ['ann', 'bob', 'cat'].map((id) => ({ userId: id, name: id.toUpperCase(), email: `${id}@example.com` })),
  });
  for (let i = 0; i < 3; i++) {
    const added = await t.callK('/v2/notifications/add', {
      organizationId: 'o1',
      documentId: 'd1',
      actionUser: { userId: 'ann', name: 'Ann' },
      displayHeadlineMessageTemplate: `{actionUser} said ${i}`,
      displayBodyMessage: 'body',
      notifyUsers: [{ userId: 'bob' }],
    });
    if (added.status !== 200) throw new Error(JSON.stringify(added.body));
  }
  await t.callK('/v2/notifications/add', {
    organizationId: 'o1',
    documentId: 'd2',
    actionUser: { userId: 'cat' },
    displayHeadlineMessageTemplate: 'on another document',
    displayBodyMessage: 'body',
    notifyUsers: [{ userId: 'ann' }],
  });
});
afterAll(() => t.close());

const get = (path: string, params: Record<string, string | number>, as = cookie) =>
  fetch(`${t.url}/admin/api${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`, { headers: { cookie: as } });
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
    expect(
      page(documentItem)
        .parse(docs.body)
        .items.map((d) => d.id),
    ).toEqual(['contract', 'd1', 'd2']);
    expect((await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', folderId: 'legal' })).items.map((d) => d.id)).toEqual(['contract']);
    const users = await json(await get('/users', { apiKey: apiKey() }));
    expect(
      page(userItem)
        .parse(users.body)
        .items.map((u) => [u.id, u.email]),
    ).toEqual([
      ['ann', 'ann@example.com'],
      ['bob', 'bob@example.com'],
      ['cat', 'cat@example.com'],
    ]);
    const members = await json(await get('/memberships', { apiKey: apiKey(), organizationId: 'o1', limit: 2 }));
    expect(
      page(membershipItem)
        .parse(members.body)
        .items.map((m) => m.userId),
    ).toEqual(['ann', 'bob']);
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
    const recipients = Number(
      (await t.query<{ n: unknown }>('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', [ofDoc.items[0]?.id]))[0]?.n,
    );
    expect(recipients).toBeGreaterThan(0);
    expect(ofDoc.items[0]?.recipients).toBe(recipients);
    expect((await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', userId: 'ann' })).items.map((n) => n.headline)).toEqual([
      'on another document',
    ]);
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
    const toBob = Number((await t.query<{ n: unknown }>("SELECT count(*) AS n FROM notification_recipients WHERE user_id = 'bob'"))[0]?.n);
    expect(toBob).toBeGreaterThanOrEqual(3);
    expect(userAnswer.parse(user.body)).toMatchObject({ user: { id: 'bob', name: 'BOB' }, organizations: ['o1'], notifications: toBob });
    const usage = keyAnswer.parse(await (await get('/key', { apiKey: apiKey() })).json());
    expect(usage.counts).toMatchObject({ organizations: 5, documents: 5, users: 3 });
    expect((await get('/organization', { apiKey: apiKey(), organizationId: 'nope' })).status).toBe(404);
    expect((await get('/user', { apiKey: apiKey(), userId: 'nobody' })).status).toBe(404);
  });
});

describe('sorting', () => {
  /** Sorted as SQLite's NOCASE compares (ASCII letters folded), then by id. */
  const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) => {
    const x = a.name.toLowerCase();
    const y = b.name.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
  const byUpdateThenId = (a: { updatedAt: number; id: string }, b: { updatedAt: number; id: string }) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : 1);

  it('sorts organizations and documents by name (ignoring case) and by last update, both ways, two at a time', async () => {
    // a lower-case name sorts among the others (not after "Z…"); a rename makes it the latest update
    expect((await t.callK('/v2/organizations/update', { organizations: [{ organizationId: 'o3', organizationName: 'another org' }] })).status).toBe(200);
    expect(
      (await t.callK('/v2/organizations/documents/update', { organizationId: 'o1', documents: [{ documentId: 'd2', documentName: 'agenda' }] })).status,
    ).toBe(200);
    const orgs = (await walk('/organizations', { apiKey: apiKey(), limit: 100 })).items.map((o) => organizationItem.parse(o));
    const docs = (await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', limit: 100 })).items.map(
      (d) => documentItem.parse(d) as { id: string; name: string; updatedAt: number },
    );
    for (const [path, rows, extra] of [
      ['/organizations', orgs as Array<{ id: string; name: string; updatedAt: number }>, {}],
      ['/documents', docs, { organizationId: 'o1' }],
    ] as const) {
      const names = [...rows].sort(byNameThenId).map((r) => r.id);
      const updates = [...rows].sort(byUpdateThenId).map((r) => r.id);
      expect((await walk(path, { apiKey: apiKey(), ...extra, sort: 'name', limit: 2 })).items.map((r) => r.id)).toEqual(names);
      expect((await walk(path, { apiKey: apiKey(), ...extra, sort: 'name', dir: 'desc', limit: 2 })).items.map((r) => r.id)).toEqual([...names].reverse());
      expect((await walk(path, { apiKey: apiKey(), ...extra, sort: 'updated', limit: 2 })).items.map((r) => r.id)).toEqual(updates);
      expect((await walk(path, { apiKey: apiKey(), ...extra, sort: 'updated', dir: 'desc', limit: 2 })).items.map((r) => r.id)).toEqual([...updates].reverse());
    }
    expect(orgs.find((o) => o.id === 'o3')?.name).toBe('another org');
    expect((await walk('/organizations', { apiKey: apiKey(), sort: 'name' })).items[0]?.id).toBe('o3');
    expect((await walk('/organizations', { apiKey: apiKey(), sort: 'updated', dir: 'desc' })).items[0]?.id).toBe('o3');
    expect((await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', sort: 'name' })).items[0]?.id).toBe('d2');
    // a folder's documents, sorted too; a search within a sort
    expect((await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', folderId: 'legal', sort: 'name' })).items.map((d) => d.id)).toEqual([
      'contract',
    ]);
    expect(
      (await walk('/documents', { apiKey: apiKey(), organizationId: 'o1', q: 'Design', sort: 'name', dir: 'desc', limit: 1 })).items.map((d) => d.id),
    ).toEqual(['d4', 'd3', 'd1']);
  });

  it('sorts users by name (ignoring case; nameless users first), both ways', async () => {
    expect(
      (
        await t.callK('/v2/users/add', {
          organizationId: 'o2',
          users: [{ userId: 'zed', name: 'aaron' }, { userId: 'nobody' }, { userId: 'ann2', name: 'ANN' }],
        })
      ).status,
    ).toBe(200);
    const up = (await walk('/users', { apiKey: apiKey(), sort: 'name', limit: 2 })).items.map((u) => u.id);
    expect(up).toEqual(['nobody', 'zed', 'ann', 'ann2', 'bob', 'cat']);
    expect((await walk('/users', { apiKey: apiKey(), sort: 'name', dir: 'desc', limit: 2 })).items.map((u) => u.id)).toEqual([...up].reverse());
  });

  it("lists an organization's notifications by time both ways, and the mailbox by time, paged", async () => {
    const stored = (await t.query<{ id: string; timestamp: unknown }>("SELECT id, timestamp FROM notifications WHERE organization_id = 'o1'"))
      .map((n) => ({ id: n.id, timestamp: Number(n.timestamp) }))
      .sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1))
      .map((n) => n.id);
    expect(stored.length).toBe(4);
    expect((await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', limit: 3 })).items.map((n) => n.id)).toEqual(stored);
    expect((await walk('/notifications', { apiKey: apiKey(), organizationId: 'o1', dir: 'desc', limit: 3 })).items.map((n) => n.id)).toEqual(
      [...stored].reverse(),
    );
    // three login-link mails of this workspace, then the mailbox two at a time, newest first by default
    const owner = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    for (let i = 0; i < 3; i++)
      expect((await t.callPublic('/v2/workspace/email/send-login-link', { email: owner, continueUrl: `${t.url}/` })).status).toBe(200);
    const ours = 'workspace_id = ? OR api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = ?)';
    const mail = (
      await t.query<{ id: string; createdAt: unknown }>(`SELECT id, created_at AS "createdAt" FROM mail_outbox WHERE ${ours}`, [
        t.credentials.workspaceId,
        t.credentials.workspaceId,
      ])
    )
      .map((m) => ({ id: m.id, createdAt: Number(m.createdAt) }))
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((m) => m.id);
    expect(mail.length).toBeGreaterThanOrEqual(3);
    const first = mailAnswer.parse((await json(await get('/mail', { limit: 2 }))).body);
    expect(first.relay.smtp).toBe(false);
    expect((await walk('/mail', { limit: 2 })).items.map((m) => m.id)).toEqual(mail);
    expect((await walk('/mail', { limit: 2, dir: 'asc' })).items.map((m) => m.id)).toEqual([...mail].reverse());
  });

  it('ties a cursor to its sort, and refuses an unknown sort with an error envelope', async () => {
    const byName = await json(await get('/organizations', { apiKey: apiKey(), sort: 'name', limit: 2 }));
    const cursor = byName.body.nextCursor as string;
    expect((await get('/organizations', { apiKey: apiKey(), sort: 'name', limit: 2, cursor })).status).toBe(200);
    for (const sort of ['id', 'updated']) expect((await get('/organizations', { apiKey: apiKey(), sort, limit: 2, cursor })).status).toBe(400);
    for (const [path, extra] of [
      ['/organizations', {}],
      ['/documents', { organizationId: 'o1' }],
      ['/users', {}],
    ] as const) {
      const bad = await json(await get(path, { apiKey: apiKey(), ...extra, sort: 'size' }));
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(/^sort: /) });
    }
    expect((await get('/users', { apiKey: apiKey(), sort: 'updated' })).status).toBe(400);
    expect((await json(await get('/mail', { dir: 'up' }))).body.error.status).toBe('INVALID_ARGUMENT');
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

  it("answers bad input with an error envelope, another workspace's key with 404, no session with 401", async () => {
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

describe("the command palette's search", () => {
  it('finds organizations, documents, folders, users, keys and webhook endpoints by id or name, exact ids first, within the workspace', async () => {
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
    const endpoint = dataOf<EndpointAnswer>(
      await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'http://127.0.0.1:9/designhook', description: 'design hook' }),
    ).id;
    const found = searchAnswer.parse((await json(await get('/search', { q: 'Design' }))).body).items;
    expect(found.map((h) => [h.kind, h.id])).toEqual(
      expect.arrayContaining([
        ['document', 'd1'],
        ['webhook', endpoint],
      ]),
    );
    const d1 = found.find((h) => h.id === 'd1')!;
    expect(d1.href).toBe(`/k/${apiKey()}/organizations/o1/documents/d1`);
    const exact = (await json(await get('/search', { q: 'o1' }))).body.items;
    expect(exact[0]).toMatchObject({ kind: 'organization', id: 'o1', href: `/k/${apiKey()}/organizations/o1` });
    expect((await json(await get('/search', { q: 'legal' }))).body.items).toContainEqual(
      expect.objectContaining({ kind: 'folder', id: 'legal', href: `/k/${apiKey()}/organizations/o1?folder=legal` }),
    );
    expect((await json(await get('/search', { q: 'bob@example' }))).body.items).toContainEqual(expect.objectContaining({ kind: 'user', id: 'bob' }));
    expect((await json(await get('/search', { q: apiKey().slice(0, 6) }))).body.items[0]).toMatchObject({ kind: 'key', id: apiKey() });
    // another workspace finds none of it
    const other = await createWorkspace(t);
    expect((await json(await get('/search', { q: 'o1' }, await adminCookie(t, other.workspaceId)))).body.items).toEqual([]);
    expect((await get('/search', { q: '' })).status).toBe(400);
  });
});

describe('query plans', () => {
  // SQLite's statements and SQLite's plans: on the suite's server when it runs on SQLite, else (npm run test:pg) on
  // a SQLite server of their own (no ANALYZE statistics: the plans do not depend on the rows)
  let onSqlite: TestServer | undefined;
  beforeAll(async () => {
    if (t.server.app.storage.engine.kind === 'postgres') onSqlite = await startTestServer({}, { engine: 'sqlite' });
  });
  afterAll(() => onSqlite?.close());
  const sqlite = () => sqliteEngineOf((onSqlite ?? t).server.app.storage).main.sqlite;
  /**
   * The statements the admin views' repository prepares while `run` calls it, through the driver (Hearth's code runs
   * as it is, on a connection of its own: statements are prepared once per connection).
   */
  async function statementsOf(run: (q: InspectionRepo) => void): Promise<string[]> {
    const seen: string[] = [];
    const real = sqlite();
    const noting = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'prepare') return (text: string) => (seen.push(text), target.prepare(text));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }) as Database.Database;
    const db = drizzle(noting, { schema });
    const reads: Array<Promise<unknown>> = [];
    const read = <T>(statements: (on: typeof db) => Promise<T>) => {
      const answer = statements(db);
      reads.push(answer);
      return answer;
    };
    run(inspectionRepo({ kind: 'sqlite', read, snapshot: read }));
    await Promise.all(reads);
    return seen;
  }
  const key = () => tenantScope(apiKey(), t.credentials.workspaceId, { kind: 'admin' });
  const planOf = (text: string) =>
    (
      sqlite()
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all(...(text.match(/\?/g) ?? []).map(() => 'x')) as Array<{
        detail: string;
      }>
    ).map((p) => p.detail);
  const LISTED = /^(SCAN|SEARCH) (organizations|documents|users|memberships|notifications|n|notification_recipients|activities|crdt_documents|mail_outbox) /;

  it('pages every list on an index (no full scan of a table) when no search is given', async () => {
    const page = { after: ['m', 'x'] as const, dir: 'asc' as const, limit: 50 };
    const seen = await statementsOf((q) => {
      void q.organizationsPage(key(), undefined, 'id', { ...page, after: ['m'] });
      void q.documentsPage(key(), 'o1', undefined, undefined, 'id', { ...page, after: ['m'] });
      void q.documentsPage(key(), 'o1', 'legal', undefined, 'id', { ...page, after: ['m'] });
      void q.usersPage(key(), undefined, 'id', { ...page, after: ['m'] });
      void q.membershipsPage(key(), { organizationId: 'o1' }, { ...page, after: ['m', 'organization', 'o1'] });
      void q.notificationsPage(key(), 'o1', {}, { ...page, after: [1, 'x'] });
      void q.notificationsPage(key(), 'o1', { documentId: 'd1' }, { ...page, after: [1, 'x'] });
      void q.notificationsPage(key(), 'o1', { userId: 'ann' }, { ...page, after: [1, 'x'] });
      void q.activityPage(key(), 'o1', {}, { ...page, after: [1, 'x'] });
      void q.activityPage(key(), 'o1', { documentId: 'd1' }, { ...page, after: [1, 'x'] });
      void q.crdtPage(key(), undefined, undefined, { ...page, after: ['a', 'b', 'c'] });
    });
    expect(seen).toHaveLength(11);
    const scans: string[] = [];
    for (const text of seen) {
      // the recipients' count per notification is a SEARCH on the primary key; only a SCAN of a table is a full read
      for (const step of planOf(text))
        if (
          /^SCAN (organizations|documents|users|memberships|notifications|notification_recipients|activities|crdt_documents)\b/.test(step) &&
          !/USING (COVERING )?INDEX|PRIMARY KEY/.test(step)
        )
          scans.push(`${step} ← ${text.slice(0, 90)}`);
    }
    expect(scans).toEqual([]);
  });

  it('sorts by name, last update and time on an index, both ways: a seek to the cursor, no sort of the rows (no temp b-tree)', async () => {
    const statements: Array<{ what: string; text: string }> = [];
    for (const dir of ['asc', 'desc'] as const) {
      for (const [what, run] of [
        ['organizations by name', (q) => q.organizationsPage(key(), undefined, 'name', { after: ['Org', 'o1'], dir, limit: 50 })],
        ['organizations by update', (q) => q.organizationsPage(key(), undefined, 'updated', { after: [1, 'o1'], dir, limit: 50 })],
        ['documents by name', (q) => q.documentsPage(key(), 'o1', undefined, undefined, 'name', { after: ['Design', 'd1'], dir, limit: 50 })],
        ['documents by update', (q) => q.documentsPage(key(), 'o1', undefined, undefined, 'updated', { after: [1, 'd1'], dir, limit: 50 })],
        ["a folder's documents by name", (q) => q.documentsPage(key(), 'o1', 'legal', undefined, 'name', { after: ['C', 'c'], dir, limit: 50 })],
        ["a folder's documents by update", (q) => q.documentsPage(key(), 'o1', 'legal', undefined, 'updated', { after: [1, 'c'], dir, limit: 50 })],
        ['users by name', (q) => q.usersPage(key(), undefined, 'name', { after: ['B', 'bob'], dir, limit: 50 })],
        ["an organization's notifications by time", (q) => q.notificationsPage(key(), 'o1', {}, { after: [1, 'x'], dir, limit: 50 })],
        ['activity by time', (q) => q.activityPage(key(), 'o1', {}, { after: [1, 'x'], dir, limit: 50 })],
        ['mail by time', (q) => q.mailPage(workspaceScope(t.credentials.workspaceId), { after: [1, 'x'], dir, limit: 50 })],
      ] as Array<[string, (q: InspectionRepo) => void]>) {
        for (const text of await statementsOf(run)) if (!/FROM api_keys/.test(text)) statements.push({ what: `${what} ${dir}`, text });
      }
    }
    const problems: string[] = [];
    for (const { what, text } of statements) {
      const plan = planOf(text);
      const list = plan.find((step) => LISTED.test(step));
      if (!list) problems.push(`${what}: no step on the listed table (${plan.join(' | ')})`);
      // SEARCH … USING … INDEX (… AND <sort term><?) or (…)>(…): the index is entered at the cursor, not read from the start
      else if (!/^SEARCH .* USING (COVERING )?INDEX .*[<>]/.test(list)) problems.push(`${what}: ${list}`);
      for (const step of plan) if (/TEMP B-TREE/.test(step)) problems.push(`${what}: ${step}`);
    }
    expect(statements.length).toBeGreaterThanOrEqual(20);
    expect(problems).toEqual([]);
  });
});
