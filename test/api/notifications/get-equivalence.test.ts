// /v2/notifications/get answers what a plain reading of the tables gives: every notification of the tenant that
// matches the filters, ordered by (timestamp, id), cut into pages, each described by describeNotification (the
// shape the notification.add event uses) with its recipients by user id. The read path builds its answer
// another way (one statement per filter shape with the recipients in a subquery, items built from raw rows), so
// this walks every filter combination, order and several page sizes over varied data and compares the
// answers byte for byte, page tokens included. It also pins the statements' query plans on SQLite. It runs on either
// engine: the rows the API does not write and the reference's reading go through t.query, plain SQL on the server's
// database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationsGetInput } from '../../../shared/schemas/feed.ts';
import { explainNotificationPage } from '../../../server/db/repos/notification-page.ts';
import { tenantScope } from '../../../server/db/scope.ts';
import { describeNotification, getNotifications, type NotificationItem, type NotificationRow } from '../../../server/services/notifications.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

let t: TestServer;
let other: Awaited<ReturnType<typeof createWorkspace>>;

// '7' and '42' are integer-like keys (an object lists them first), '__proto__' must stay an own key, 'ｗide'
// (U+FF57) sorts before '😀' in SQLite's byte order (UTF-8) but after it in JavaScript's (UTF-16).
const PEOPLE = ['ann', 'bob', '42', '7', 'zoë', '😀', 'ｗide', '__proto__'];
const CROWD = Array.from({ length: 120 }, (_, i) => `participant-${String(i).padStart(3, '0')}`);
const TIE = 1_600_000_000_000;
/** Comment threads and who may see them once made private (undefined: public; bob, the author, always may). */
const THREADS: Array<[string, string[] | undefined]> = [
  ['thread-open', undefined],
  ['thread-ann', ['ann']],
  ['thread-few', ['42', '😀']],
  ['thread-closed', []],
];

beforeAll(async () => {
  t = await startTestServer();
  other = await createWorkspace(t);
  const documents = [{ documentId: 'doc' }, { documentId: 'other' }];
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme2', createOrganization: true, documents });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents }, other.headersK);

  for (let i = 0; i < 60; i++) {
    const resolver = i % 10 === 5;
    const notifyUsers = PEOPLE.filter((_, p) => (i >> p) & 1 || (i + p) % 5 === 0).map((userId) =>
      i % 2 ? { userId, name: `Name of ${userId}` } : { userId },
    );
    const data: Record<string, unknown> = {
      organizationId: 'acme',
      documentId: i % 3 === 0 ? 'other' : 'doc',
      notificationId: i % 11 === 4 ? undefined : `n${String(i).padStart(2, '0')}`,
      actionUser: i % 4 === 0 ? { userId: 'sys' } : { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      isNotificationResolverUsed: resolver || undefined,
      displayHeadlineMessageTemplate: resolver ? undefined : '{actionUser} mentioned you',
      displayBodyMessage: resolver ? undefined : `#${i} "quoted" \\ back\nline \u2028 ✓ 😀 \u0001`,
      notifyAll: false,
      notifyUsers: i === 13 ? CROWD.map((userId) => ({ userId })) : i === 7 ? PEOPLE.map((userId) => ({ userId })) : notifyUsers,
      locationId: [undefined, 'A', 'B', 'A'][i % 4],
      notificationSource: i % 9 === 2 ? 'comment' : undefined,
      notificationSourceData: i % 5 === 1 ? { commentId: `c${i}`, '10': 1, nested: { list: [1, 2.5, 'x', null], deep: { yes: true } } } : undefined,
      displayHeadlineMessageTemplateData: i % 6 === 2 ? { actionUser: { userId: 'ann' }, count: i, '2': 'two' } : undefined,
      context: i % 7 === 3 ? { access: { team: 'red', level: 2 } } : undefined,
    };
    const res = await t.callK('/v2/notifications/add', data);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // the same ids in another organization of the key and under another key, with other content
    if (i % 4 === 1) {
      await t.callK('/v2/notifications/add', { ...data, organizationId: 'acme2', displayBodyMessage: `acme2 #${i}` });
      await t.callK('/v2/notifications/add', { ...data, displayBodyMessage: `tenant-b #${i}`, notifyUsers: [{ userId: 'ann' }] }, other.headersK);
    }
  }
  await t.callK('/v2/notifications/update', {
    organizationId: 'acme',
    notifications: [
      { id: 'n01', readByUserIds: ['ann', '42'] },
      { id: 'n07', readByUserIds: ['__proto__', '😀', 'ｗide'] },
      { id: 'n13', readByUserIds: ['participant-007'] },
    ],
  });

  // Comment threads by bob that mention readers, some made private afterwards: a by-recipient page leaves out what
  // its reader may no longer see (reference §2.15), a by-document page (no reader) keeps them. Then notifications
  // of our own naming the private thread: as a comment's (filtered but for its author) and as a custom one (not).
  await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
  for (const [annotationId, userIds] of THREADS) {
    const thread = {
      annotationId,
      commentData: [{ commentText: `in ${annotationId}`, from: { userId: 'bob' }, taggedUserContacts: ['ann', '42', '😀'].map((userId) => ({ userId })) }],
    };
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [thread] })).status).toBe(200);
    if (userIds) {
      const update = { organizationId: 'acme', annotationIds: [annotationId], updatedData: { visibility: { type: 'restricted', userIds } } };
      expect((await t.callK('/v2/commentannotations/update', update)).status).toBe(200);
    }
  }
  for (const notificationSource of ['comment', 'custom']) {
    const own = {
      organizationId: 'acme',
      documentId: 'doc',
      notificationId: `own-${notificationSource}`,
      actionUser: { userId: 'sys' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: 'b',
      notifyAll: false,
    };
    await t.callK('/v2/notifications/add', {
      ...own,
      notificationSource,
      notificationSourceData: { annotationId: 'thread-closed' },
      notifyUsers: [{ userId: 'ann' }, { userId: 'bob' }],
    });
  }

  // Rows the API does not write: equal timestamps (the id breaks the tie, in byte order: SQLite's text, PostgreSQL's
  // under the C collation the engine requires), stored JSON that is not in JSON.stringify's form (PostgreSQL's json
  // keeps the text as given), a JSON null source, a falsy context, recipients with no user row. (FALSE and TRUE:
  // SQLite's 0 and 1, PostgreSQL's booleans.)
  const apiKeyId = t.credentials.apiKey;
  const insert = (...params: unknown[]) =>
    t.query(
      `INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)
       VALUES (?, 'acme', ?, 'doc', ?, 'custom', ?, ?, 'h', ?, ?, FALSE, ?, ?)`,
      params,
    );
  const recipient = (...params: unknown[]) =>
    t.query(
      "INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, 'acme', ?, ?, 'doc', ?, TRUE, ?)",
      params,
    );
  const ties: Array<[string, string | null, string | null, string, string | null, string | null]> = [
    ['tie-b', 'A', null, '{"userId":"sys"}', null, null],
    ['tie-a', null, 'null', '{ "userId" : "raw", "n" : 1.50, "u" : "\\u00e9", "1" : true }', '{"b":1,"a":[1.0,2e3]}', '0'],
    ['tie-ｗ', 'A', '{"k":"v"}', '{"userId":"w"}', null, '{"team":"red"}'],
    ['tie-😀', 'B', null, '{"userId":"e"}', '[]', null],
    ['tie-A', null, null, '{"userId":"sys"}', null, '""'],
  ];
  for (const [id, location, sourceData, actionUser, headlineData, context] of ties) {
    await insert(apiKeyId, id, location, sourceData, actionUser, headlineData, `tie ${id}`, context, TIE);
    await recipient(apiKeyId, id, 'ann', TIE, id === 'tie-a' ? TIE + 5 : null);
    if (id !== 'tie-A') await recipient(apiKeyId, id, '😀', TIE, null);
  }
  // a recipient row that disagrees with its notification on the document: found through the recipient's,
  // described with the notification's
  await insert(apiKeyId, 'drift', null, null, '{"userId":"sys"}', null, 'drift', null, TIE + 1);
  await t.query("UPDATE notifications SET document_id = 'other' WHERE api_key_id = ? AND organization_id = 'acme' AND id = 'drift'", [apiKeyId]);
  await recipient(apiKeyId, 'drift', 'ann', TIE + 1, null);
}, 60_000);
afterAll(() => t.close());

type Input = Record<string, unknown>;

/** The tenant scope authentication gives the key's calls (the service is called in process here). */
const scopeOf = (apiKeyId: string) =>
  apiKeyId === other.apiKey ? tenantScope(other.apiKey, other.workspaceId) : tenantScope(apiKeyId, t.credentials.workspaceId);

type Row = Record<string, unknown>;

/**
 * The values a column holds, the same on both engines (what drizzle's SQLite columns made of them): SQLite gives
 * JSON as its text and booleans as 0/1, PostgreSQL's driver gives json parsed (JSON.parse of the stored text, SQL
 * NULL as null), booleans as booleans and bigint as text.
 */
const onPostgres = () => t.server.app.storage.engine.kind === 'postgres';
const json = <T>(value: unknown) => (value === null || onPostgres() ? value : JSON.parse(value as string)) as T;
const integer = (value: unknown) => (value === null ? null : Number(value));
const boolean = (value: unknown) => Number(value) === 1;

/** The rows of the tables the reference reads, for one organization of one key: plain SQL through t.query. */
/** The rows in a total order: PostgreSQL returns rows in whatever order its pages hold them, which a vacuum changes. */
async function readTables(apiKeyId: string, organizationId: string) {
  const where = 'WHERE api_key_id = ? AND organization_id = ?';
  const rows = (await t.query(`SELECT * FROM notifications ${where} ORDER BY id`, [apiKeyId, organizationId])).map(
    (r: Row): NotificationRow => ({
      apiKeyId: r.api_key_id as string,
      organizationId: r.organization_id as string,
      id: r.id as string,
      documentId: r.document_id as string,
      locationId: r.location_id as string | null,
      source: r.source as NotificationRow['source'],
      sourceData: json(r.source_data),
      actionUser: json(r.action_user),
      headlineTemplate: r.headline_template as string | null,
      headlineData: json(r.headline_data),
      body: r.body as string | null,
      resolver: boolean(r.resolver),
      contextAccess: json(r.context_access),
      timestamp: integer(r.timestamp)!,
    }),
  );
  const recipients = (await t.query(`SELECT * FROM notification_recipients ${where} ORDER BY user_id, notification_id`, [apiKeyId, organizationId])).map(
    (r: Row) => ({
      notificationId: r.notification_id as string,
      userId: r.user_id as string,
      documentId: r.document_id as string,
      readAt: integer(r.read_at),
    }),
  );
  const annotations = (await t.query(`SELECT * FROM comment_annotations ${where} ORDER BY id`, [apiKeyId, organizationId])).map((r: Row) => ({
    id: r.id as string,
    visibility: r.visibility as string,
    visibleToUserIds: json<string[] | null>(r.visible_to_user_ids),
    createdByUserId: r.created_by_user_id as string,
  }));
  return { rows, recipients, annotations };
}

type Tables = Awaited<ReturnType<typeof readTables>>;

/**
 * The pages a plain reading of the tables gives: items and the page token after each page. The tables are read
 * now, or given: as read at the start of a test that writes nothing (a fresh connection per reading is slow on
 * PostgreSQL), checked unchanged at its end by `unchanged`.
 */
async function reference(apiKeyId: string, data: Input, tables?: Tables): Promise<Array<{ items: string; pageToken: string | null }>> {
  const input = notificationsGetInput.parse(data);
  const app = t.server.app;
  const { rows, recipients, annotations } = tables ?? (await readTables(apiKeyId, input.organizationId));
  const recipientsOf = (id: string) => recipients.filter((r) => r.notificationId === id);
  const hiddenFrom = (row: (typeof rows)[number], reader: string) => {
    const thread = row.source === 'comment' ? annotations.find((a) => a.id === row.sourceData?.annotationId) : undefined;
    return thread?.visibility === 'restricted' && thread.createdByUserId !== reader && !(thread.visibleToUserIds ?? []).includes(reader);
  };
  const matching = rows.filter((row) => {
    if (input.userId) {
      if (!recipientsOf(row.id).some((r) => r.userId === input.userId && (!input.documentId || r.documentId === input.documentId))) return false;
      if (hiddenFrom(row, input.userId)) return false;
    } else if (row.documentId !== input.documentId) return false;
    if (input.locationId && row.locationId !== input.locationId) return false;
    return !input.notificationIds || input.notificationIds.includes(row.id);
  });
  // (timestamp, id) as both engines order them: integers, then text by its UTF-8 bytes
  matching.sort((a, b) => a.timestamp - b.timestamp || Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
  if (input.order === 'desc') matching.reverse();
  const scope = {
    op: 'notifications/get',
    apiKeyId,
    o: input.organizationId,
    d: input.documentId,
    l: input.locationId,
    u: input.userId,
    ids: input.notificationIds,
    order: input.order,
  };
  const pages = [];
  for (let start = 0; start === 0 || start < matching.length; start += input.pageSize) {
    const page = matching.slice(start, start + input.pageSize);
    const last = page[page.length - 1];
    const more = start + input.pageSize < matching.length;
    pages.push({
      items: JSON.stringify(
        page.map((row) =>
          describeNotification(
            row,
            recipientsOf(row.id).map((r) => ({ userId: r.userId, readAt: r.readAt })),
          ),
        ),
      ),
      pageToken: more && last ? app.pageTokens.encode(scope, [last.timestamp, last.id]) : null,
    });
  }
  return pages;
}

/** Walks every page through the service, comparing each with the reference's; returns the items seen. */
async function compareWalk(apiKeyId: string, data: Input, tables?: Tables) {
  const expected = await reference(apiKeyId, data, tables);
  const seen: Array<{ id: string; displayBodyMessage: string | null }> = [];
  let pageToken: string | undefined;
  for (const [n, page] of expected.entries()) {
    const got = await getNotifications(t.server.app, scopeOf(apiKeyId), notificationsGetInput.parse({ ...data, pageToken }));
    const label = `${JSON.stringify(data)} page ${n}`;
    expect(JSON.stringify(got.items), label).toBe(page.items);
    expect(got.pageToken, label).toBe(page.pageToken);
    seen.push(...got.items);
    pageToken = got.pageToken ?? undefined;
  }
  expect(pageToken).toBeUndefined();
  return seen;
}

/** The tables of each organization of the default key, as read now: for a test that writes nothing. */
async function readOnce(organizationIds: string[]) {
  const read = new Map<string, Tables>();
  for (const organizationId of organizationIds) read.set(organizationId, await readTables(t.credentials.apiKey, organizationId));
  return read;
}

/** What readOnce read is still what the tables hold: the test compared the service's pages with the tables as they are. */
async function unchanged(read: Map<string, Tables>) {
  for (const [organizationId, tables] of read) expect(await readTables(t.credentials.apiKey, organizationId)).toEqual(tables);
}

const SIZES = [1, 2, 7, 50, 1000];
const ORDERS = ['desc', 'asc'];
const IDS = [undefined, ['n03', 'n01', 'n02', 'n13', 'tie-a', 'tie-😀', 'tie-A', 'n59', 'missing']];

describe('/v2/notifications/get answers what the tables say', () => {
  it('by document, with and without location and ids, both orders, several page sizes', async () => {
    let walks = 0;
    const tables = await readOnce(['acme', 'acme2']);
    for (const organizationId of ['acme', 'acme2']) {
      for (const documentId of ['doc', 'other', 'none']) {
        for (const locationId of [undefined, 'A', 'B', 'Z']) {
          for (const notificationIds of IDS) {
            for (const order of ORDERS) {
              for (const pageSize of SIZES) {
                await compareWalk(
                  t.credentials.apiKey,
                  { organizationId, documentId, locationId, notificationIds, order, pageSize },
                  tables.get(organizationId),
                );
                walks++;
              }
            }
          }
        }
      }
    }
    expect(walks).toBe(480);
    await unchanged(tables);
  });

  it('by recipient, alone and narrowed to a document, a location and ids', async () => {
    const tables = await readOnce(['acme']);
    for (const userId of [...PEOPLE, 'participant-007', 'nobody']) {
      for (const documentId of [undefined, 'doc', 'none']) {
        for (const locationId of [undefined, 'A']) {
          for (const notificationIds of IDS) {
            for (const order of ORDERS) {
              for (const pageSize of [1, 3, 1000])
                await compareWalk(
                  t.credentials.apiKey,
                  { organizationId: 'acme', userId, documentId, locationId, notificationIds, order, pageSize },
                  tables.get('acme'),
                );
            }
          }
        }
      }
    }
    await unchanged(tables);
  });

  it('covers what it means to: ties, many recipients, read state, odd keys, the fields of every item kind', async () => {
    const all = (
      await getNotifications(t.server.app, scopeOf(t.credentials.apiKey), notificationsGetInput.parse({ organizationId: 'acme', documentId: 'doc' }))
    ).items;
    // the tie is broken by the id's bytes: 'tie-A' < 'tie-a' < 'tie-b' < 'tie-ｗ' < 'tie-😀' (newest first: reversed)
    expect(all.filter((n) => n.timestamp === TIE).map((n) => n.id)).toEqual(['tie-😀', 'tie-ｗ', 'tie-b', 'tie-a', 'tie-A']);
    const crowd = all.find((n) => n.id === 'n13')!;
    expect(Object.keys(crowd.notifyUsersByUserId)).toEqual(CROWD);
    expect(crowd.readByUserIds).toEqual(['participant-007']);
    const odd = all.find((n) => n.id === 'n07')!;
    expect(Object.keys(odd.notifyUsersByUserId)).toEqual(['7', '42', '__proto__', 'ann', 'bob', 'zoë', 'ｗide', '😀']);
    expect(Object.getPrototypeOf(odd.notifyUsersByUserId)).toBe(Object.prototype);
    expect(Object.keys(odd.notifyUsers)).toHaveLength(PEOPLE.length);
    expect(odd.readByUserIds).toEqual(['__proto__', 'ｗide', '😀']);
    const raw = all.find((n) => n.id === 'tie-a')!;
    expect(JSON.stringify([raw.actionUser, raw.notificationSourceData, raw.displayHeadlineMessageTemplateData, raw.context])).toBe(
      '[{"1":true,"userId":"raw","n":1.5,"u":"é"},{},{"b":1,"a":[1,2000]},null]',
    );
    expect(all.find((n) => n.id === 'tie-ｗ')!.context).toEqual({ access: { team: 'red' } });
    const drift = (
      await getNotifications(
        t.server.app,
        scopeOf(t.credentials.apiKey),
        notificationsGetInput.parse({ organizationId: 'acme', userId: 'ann', documentId: 'doc', notificationIds: ['drift'] }),
      )
    ).items;
    expect(drift.map((n) => n.metadata.documentId)).toEqual(['other']);
    expect(
      all.some((n) => n.isNotificationResolverUsed) &&
        all.some((n) => n.notificationSource === 'comment') &&
        all.some((n) => Object.keys(n.notifyUsers).length === 0),
    ).toBe(true);
    // the private threads' notifications: all kept by document; each reader's page has only the threads it may see
    const threadsOf = (items: typeof all) =>
      items
        .filter((n) => n.notificationSource === 'comment' && n.notificationSourceData.annotationId)
        .map((n) => `${n.notificationSourceData.annotationId as string}${n.id.startsWith('own-') ? ' (own)' : ''}`);
    expect(threadsOf(all).sort()).toEqual(['thread-ann', 'thread-closed', 'thread-closed (own)', 'thread-few', 'thread-open']);
    const pageOf = async (userId: string) =>
      (await getNotifications(t.server.app, scopeOf(t.credentials.apiKey), notificationsGetInput.parse({ organizationId: 'acme', userId }))).items;
    expect(threadsOf(await pageOf('ann')).sort()).toEqual(['thread-ann', 'thread-open']);
    expect(threadsOf(await pageOf('42')).sort()).toEqual(['thread-few', 'thread-open']);
    expect(threadsOf(await pageOf('bob'))).toEqual(['thread-closed (own)']);
    expect((await pageOf('ann')).some((n) => n.id === 'own-custom')).toBe(true);
  });

  it('keeps tenants and organizations apart even where their ids are the same', async () => {
    const tenantB = await compareWalk(other.apiKey, { organizationId: 'acme', documentId: 'doc', pageSize: 3 });
    expect(tenantB.length).toBeGreaterThan(0);
    expect(tenantB.every((n) => n.displayBodyMessage?.startsWith('tenant-b'))).toBe(true);
    expect(
      (await compareWalk(other.apiKey, { organizationId: 'acme', userId: 'ann', pageSize: 2 })).every((n) => n.displayBodyMessage?.startsWith('tenant-b')),
    ).toBe(true);
    const acme2 = await compareWalk(t.credentials.apiKey, { organizationId: 'acme2', userId: 'ann', pageSize: 1000 });
    expect(acme2.length).toBeGreaterThan(0);
    expect(acme2.every((n) => n.displayBodyMessage?.startsWith('acme2'))).toBe(true);
    const mine = await compareWalk(t.credentials.apiKey, { organizationId: 'acme', documentId: 'doc', pageSize: 1000 });
    expect(mine.some((n) => n.displayBodyMessage?.startsWith('tenant-b') || n.displayBodyMessage?.startsWith('acme2'))).toBe(false);
  });

  it('answers the same over HTTP, and a page read twice is the same page', async () => {
    for (const data of [
      { organizationId: 'acme', documentId: 'doc', pageSize: 7 },
      { organizationId: 'acme', userId: '😀', order: 'asc', pageSize: 4 },
    ]) {
      const [first] = await reference(t.credentials.apiKey, data);
      for (let i = 0; i < 2; i++) {
        const res = await t.callK('/v2/notifications/get', data);
        expect(resultOf(res)).toEqual({
          status: 'success',
          message: 'Notification(s) retrieved successfully.',
          data: JSON.parse(first!.items),
          pageToken: first!.pageToken,
        });
      }
    }
  });

  it('reads a notification changed since the last read as it is now', async () => {
    const read = async () =>
      (
        await getNotifications(
          t.server.app,
          scopeOf(t.credentials.apiKey),
          notificationsGetInput.parse({ organizationId: 'acme', documentId: 'doc', notificationIds: ['n02'] }),
        )
      ).items[0]!;
    const before = await read();
    await t.callK('/v2/notifications/update', {
      organizationId: 'acme',
      notifications: [{ id: 'n02', readByUserIds: ['bob'], actionUser: { userId: 'bob', name: 'Bob' } }],
    });
    const after = await read();
    expect(after.readByUserIds).toEqual(['bob']);
    expect(after.actionUser).toEqual({ userId: 'bob', name: 'Bob' });
    expect(before.readByUserIds).toEqual([]);
    await compareWalk(t.credentials.apiKey, { organizationId: 'acme', documentId: 'doc', pageSize: 5 });
  });

  describe('query plans', () => {
    // SQLite's statements and SQLite's plans (EXPLAIN QUERY PLAN): on this file's server when it runs on SQLite,
    // else (npm run test:pg) on a SQLite server of their own (no ANALYZE statistics: the plans do not depend on
    // the rows)
    let onSqlite: TestServer | undefined;
    beforeAll(async () => {
      if (onPostgres()) onSqlite = await startTestServer({}, { engine: 'sqlite' });
    });
    afterAll(() => onSqlite?.close());

    it('plans every filter shape on its index, without sorting', () => {
      const server = onSqlite ?? t;
      const plan = (data: Input, cursor: [number, string] | null = null) =>
        explainNotificationPage(
          sqliteEngineOf(server.server.app.storage).main.sqlite,
          server.credentials.apiKey,
          notificationsGetInput.parse(data),
          cursor,
        ).join(' | ');
      const recipients = 'SEARCH r USING INDEX sqlite_autoindex_notification_recipients_1 (api_key_id=? AND organization_id=? AND notification_id=?)';
      for (const cursor of [null, [TIE, 'n00'] as [number, string]]) {
        for (const order of ORDERS) {
          const shapes: Array<[Input, string]> = [
            [{ documentId: 'doc' }, 'SEARCH notifications USING INDEX notifications_document (api_key_id=? AND organization_id=? AND document_id=?)'],
            [
              { documentId: 'doc', locationId: 'A' },
              'SEARCH notifications USING INDEX notifications_location (api_key_id=? AND organization_id=? AND document_id=? AND location_id=?)',
            ],
            [
              { userId: 'ann' },
              'SEARCH notification_recipients USING COVERING INDEX notification_recipients_user (api_key_id=? AND organization_id=? AND user_id=?)',
            ],
            [
              { userId: 'ann', locationId: 'A' },
              'SEARCH notification_recipients USING COVERING INDEX notification_recipients_user (api_key_id=? AND organization_id=? AND user_id=?)',
            ],
            [
              { userId: 'ann', documentId: 'doc' },
              'SEARCH notification_recipients USING COVERING INDEX notification_recipients_user_document (api_key_id=? AND organization_id=? AND user_id=? AND document_id=?)',
            ],
          ];
          for (const [filters, page] of shapes) {
            const got = plan({ organizationId: 'acme', order, pageSize: 50, ...filters }, cursor);
            expect(got.startsWith(page), got).toBe(true);
            expect(got).toContain(recipients);
            // the one scan: of a private thread's reader list (by recipient, for a comment's notification)
            expect(got).not.toMatch(/\bSCAN (?!v VIRTUAL TABLE)|TEMP B-TREE/);
            if (filters.userId)
              expect(got).toContain('SEARCH a USING INDEX sqlite_autoindex_comment_annotations_1 (api_key_id=? AND organization_id=? AND id=?)');
          }
          // at most 30 ids: looked up one by one by primary key
          expect(plan({ organizationId: 'acme', order, pageSize: 50, documentId: 'doc', notificationIds: ['a', 'b'] }, cursor)).not.toMatch(/\bSCAN\b/);
          expect(plan({ organizationId: 'acme', order, pageSize: 50, userId: 'ann', notificationIds: ['a', 'b'] }, cursor)).not.toMatch(
            /\bSCAN (?!v VIRTUAL TABLE)/,
          );
        }
      }
    });
  });

  it('shows every write on the next read of a polled page, whoever wrote it (the response cache keeps answers)', async () => {
    const data = { organizationId: 'poll', documentId: 'doc', pageSize: 3 };
    const poll = async () => {
      const res = await t.callK('/v2/notifications/get', data);
      expect(res.status).toBe(200);
      const [first] = await reference(t.credentials.apiKey, data);
      expect(resultOf(res)).toEqual({
        status: 'success',
        message: 'Notification(s) retrieved successfully.',
        data: JSON.parse(first!.items),
        pageToken: first!.pageToken,
      });
      return dataOf<NotificationItem[]>(res);
    };
    const add = (notificationId: string) =>
      t.callK('/v2/notifications/add', {
        organizationId: 'poll',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        notificationId,
        actionUser: { userId: 'sys' },
        displayHeadlineMessageTemplate: 'h',
        displayBodyMessage: notificationId,
        notifyAll: false,
        notifyUsers: [{ userId: 'ann' }],
      });
    await add('p1');
    expect((await poll()).map((n) => n.id)).toEqual(['p1']);
    expect((await poll()).map((n) => n.id)).toEqual(['p1']);
    expect(t.server.app.responses.size).toBeGreaterThan(0);
    await add('p2');
    expect((await poll()).map((n) => n.id)).toEqual(['p2', 'p1']);
    await t.callK('/v2/notifications/update', { organizationId: 'poll', notifications: [{ id: 'p1', readByUserIds: ['ann'] }] });
    expect((await poll())[1]!.readByUserIds).toEqual(['ann']);
    // another connection to the database (the CLI, an import; on PostgreSQL another instance)
    await t.query("UPDATE notifications SET body = 'changed elsewhere' WHERE organization_id = 'poll' AND id = 'p2'");
    expect((await poll())[0]!.displayBodyMessage).toBe('changed elsewhere');
    await t.callK('/v1/notifications/delete', { organizationId: 'poll', notificationIds: ['p2'] });
    expect((await poll()).map((n) => n.id)).toEqual(['p1']);
    // another key asking with the same body is not answered from this key's page
    expect(dataOf(await t.callK('/v2/notifications/get', data, other.headersK))).toEqual([]);
  });
});
