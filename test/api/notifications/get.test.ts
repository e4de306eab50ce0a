import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { NotificationItem } from '../../../server/services/notifications.ts';

let t: TestServer;
const ids: { doc: string[]; other: string[]; locA: string[] } = { doc: [], other: [], locA: [] };
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'doc' }, { documentId: 'other' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }, { userId: 'bob' }] });
  // 40 notifications: alternating documents, every third at location A; bob is told about every other one
  for (let i = 0; i < 40; i++) {
    const documentId = i % 2 ? 'other' : 'doc';
    const notificationId = `n${String(i).padStart(2, '0')}`;
    const notifyUsers = i % 4 < 2 ? [{ userId: 'ann' }, { userId: 'bob' }] : [{ userId: 'ann' }];
    await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId,
      notificationId,
      actionUser: { userId: 'sys' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: `#${i}`,
      notifyAll: false,
      notifyUsers,
      locationId: i % 3 === 0 ? 'A' : 'B',
    });
    ids[documentId === 'doc' ? 'doc' : 'other'].push(notificationId);
    if (documentId === 'doc' && i % 3 === 0) ids.locA.push(notificationId);
  }
});
afterAll(() => t.close());

async function walk(data: Record<string, unknown>, pageSize: number) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const res = await t.callK('/v2/notifications/get', { organizationId: 'acme', ...data, pageSize, pageToken });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Notification(s) retrieved successfully.');
    seen.push(...dataOf<NotificationItem[]>(res).map((n) => n.id));
    pageToken = resultOf(res).pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/notifications/get', () => {
  it('walks a document newest first, every notification exactly once, with page sizes 1, 7 and 1000', async () => {
    const newestFirst = [...ids.doc].reverse();
    for (const size of [1, 7, 1000]) expect(await walk({ documentId: 'doc' }, size)).toEqual(newestFirst);
  });

  it('orders oldest first with order asc', async () => {
    expect(await walk({ documentId: 'doc', order: 'asc' }, 6)).toEqual(ids.doc);
  });

  it("walks a user's inbox, alone and narrowed to a document or a location", async () => {
    const bobs = [...ids.doc, ...ids.other]
      .filter((id) => Number(id.slice(1)) % 4 < 2)
      .sort()
      .reverse();
    expect(await walk({ userId: 'bob' }, 3)).toEqual(bobs);
    expect(await walk({ userId: 'bob', documentId: 'other' }, 4)).toEqual(bobs.filter((id) => ids.other.includes(id)));
    expect(await walk({ userId: 'ann', documentId: 'doc', locationId: 'A' }, 2)).toEqual([...ids.locA].reverse());
    expect(await walk({ documentId: 'doc', locationId: 'A' }, 2)).toEqual([...ids.locA].reverse());
  });

  it('filters by notificationIds (at most 30)', async () => {
    expect(await walk({ documentId: 'doc', notificationIds: ['n00', 'n02', 'n01'] }, 10)).toEqual(['n02', 'n00']);
    const tooMany = await t.callK('/v2/notifications/get', {
      organizationId: 'acme',
      documentId: 'doc',
      notificationIds: Array.from({ length: 31 }, (_, i) => `n${i}`),
    });
    expect(errorOf(tooMany)).toEqual({ status: 'INVALID_ARGUMENT', message: 'notificationIds must have at most 30 item(s).' });
  });

  it('needs documentId or userId, and validates the rest', async () => {
    expect(errorOf(await t.callK('/v2/notifications/get', { organizationId: 'acme' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'Pass documentId or userId.',
    });
    expect(errorOf(await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc', order: 'newest' })).message).toBe(
      'order must be one of: asc, desc.',
    );
    expect(errorOf(await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc', pageSize: 0 })).message).toBe(
      'pageSize must be at least 1.',
    );
  });

  it('refuses forged and foreign page tokens', async () => {
    const first = await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc', pageSize: 2 });
    const token = resultOf(first).pageToken;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) => {
      const res = await t.callK('/v2/notifications/get', { organizationId: 'acme', pageSize: 2, ...data }, headers);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    };
    await bad({ documentId: 'doc', pageToken: 'x.y' });
    await bad({ documentId: 'other', pageToken: token });
    await bad({ documentId: 'doc', order: 'asc', pageToken: token });
    const other = await createWorkspace(t);
    await bad({ documentId: 'doc', pageToken: token }, other.headersK);
  });

  it('shows read state per user', async () => {
    await t.callK('/v2/notifications/update', { organizationId: 'acme', notifications: [{ id: 'n00', readByUserIds: ['bob'] }] });
    const res = await t.callK('/v2/notifications/get', { organizationId: 'acme', userId: 'bob', notificationIds: ['n00'] });
    expect(dataOf<NotificationItem[]>(res)[0]!.readByUserIds).toEqual(['bob']);
  });

  it("leaves a private comment's notification out of a reader's page while the reader may not see the thread", async () => {
    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });
    const thread = { annotationId: 'secret', commentData: [{ commentText: 'the plan', from: { userId: 'bob' }, taggedUserContacts: [{ userId: 'ann' }] }] };
    expect((await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [thread] })).status).toBe(200);
    const mentions = async (data: Record<string, unknown>) => {
      const res = await t.callK('/v2/notifications/get', { organizationId: 'acme', ...data });
      return dataOf<NotificationItem[]>(res)
        .filter((n) => n.notificationSourceData.annotationId === 'secret')
        .map((n) => n.displayBodyMessage);
    };
    expect(await mentions({ userId: 'ann' })).toEqual(['the plan']);
    const visibility = (userIds: string[] | undefined) =>
      t.callK('/v2/commentannotations/update', {
        organizationId: 'acme',
        annotationIds: ['secret'],
        updatedData: { visibility: userIds ? { type: 'restricted', userIds } : { type: 'public' } },
      });
    await visibility(['cat']);
    expect(await mentions({ userId: 'ann' })).toEqual([]);
    expect(await mentions({ userId: 'ann', documentId: 'doc' })).toEqual([]);
    // a page by document has no reader: the API key's own view keeps it
    expect(await mentions({ documentId: 'doc' })).toEqual(['the plan']);
    await visibility(['cat', 'ann']);
    expect(await mentions({ userId: 'ann' })).toEqual(['the plan']);
    await visibility([]);
    expect(await mentions({ userId: 'ann' })).toEqual([]);
    await visibility(undefined);
    expect(await mentions({ userId: 'ann' })).toEqual(['the plan']);
  });
});
