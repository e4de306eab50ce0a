// The admin UI's reads added for issue 44 (Users by e-mail, the palette's new kinds, the Live list's search, the
// workspace delivery log and its counts), through the admin API: the same answers on SQLite and, under
// `npm run test:pg`, on PostgreSQL (their queries are written per engine: db/repos/inspection*.ts, db/pg/repos/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

let t: TestServer;
let cookie: string;
let receiver: Receiver;
let notificationId: string;
beforeAll(async () => {
  // a receiver that refuses every delivery: the log holds failed and retrying ones
  receiver = await startReceiver({ fallback: { status: 500 } });
  t = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, retryScheduleMs: [0, 60_000] } });
  cookie = await adminCookie(t);
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'quarterly-report', documentName: 'Quarterly figures' }],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann', name: 'Ann', email: 'ann.lee@example.com' }] });
  await t.callK('/v2/organizations/usergroups/add', { organizationId: 'acme', organizationUserGroups: [{ groupId: 'reviewers', groupName: 'Reviewers' }] });
  await t.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'quarterly-report', editorId: 'main', type: 'text', data: 'Q3' });
  await enableWithEndpoint(t, receiver.url);
  const added = await t.callK('/v2/notifications/add', {
    organizationId: 'acme',
    documentId: 'quarterly-report',
    notificationId: 'note-42',
    actionUser: { userId: 'sys' },
    displayHeadlineMessageTemplate: 'Review the figures',
    displayBodyMessage: 'b',
    notifyUsers: [{ userId: 'ann' }],
  });
  expect(added.status).toBe(200);
  notificationId = 'note-42';
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const get = async (path: string, params: Record<string, string>) => {
  const res = await fetch(`${t.url}/admin/api${path}?${new URLSearchParams(params)}`, { headers: { cookie } });
  expect([path, res.status]).toEqual([path, 200]);
  return (await res.json()) as Record<string, unknown> & { items: Array<Record<string, unknown>> };
};

describe('the admin UI’s reads (issue 44)', () => {
  it('finds a user by e-mail, and a group, a notification and a document through the palette', async () => {
    const users = await get('/users', { apiKey: t.credentials.apiKey, q: 'ann.lee@' });
    expect(users.items.map((u) => u.id)).toEqual(['ann']);
    const kinds = async (q: string) => (await get('/search', { q })).items;
    expect(await kinds('review')).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'group', id: 'reviewers' })]));
    expect(await kinds(notificationId)).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'notification', id: notificationId })]));
    // odd input is an answer, never a 500: LIKE wildcards and quotes are text; NUL (which PostgreSQL cannot hold) a 400
    for (const q of ['%', '_', "'", 'a\\b']) expect(await kinds(q)).toEqual([]);
    for (const path of ['/search', '/users', '/crdt/page']) {
      const res = await fetch(`${t.url}/admin/api${path}?${new URLSearchParams({ apiKey: t.credentials.apiKey, q: 'x\u0000y' })}`, { headers: { cookie } });
      expect([path, res.status]).toEqual([path, 400]);
      expect(JSON.stringify(await res.json())).toContain('NUL character');
    }
  });

  it('searches the Live list by org/doc and by document name', async () => {
    for (const q of ['acme/quarterly', 'Quarterly fig', 'quarterly-report']) {
      const page = await get('/crdt/page', { apiKey: t.credentials.apiKey, q });
      expect([q, page.items.map((r) => r.documentId)]).toEqual([q, ['quarterly-report']]);
    }
  });

  it('lists the workspace’s deliveries with their state, and counts them as the log does', async () => {
    await eventually(async () => {
      const log = await get('/webhooks/deliveries', {});
      expect(log.items.length).toBeGreaterThan(0);
      expect(log.items.every((d) => typeof d.eventType === 'string' && ['pending', 'retrying', 'failed', 'succeeded'].includes(d.state as string))).toBe(true);
      expect(log.items.some((d) => d.state === 'retrying')).toBe(true);
    }, 10_000);
    const retrying = await get('/webhooks/deliveries', { status: 'retrying' });
    expect(retrying.items.length).toBeGreaterThan(0);
    expect(retrying.counts).toBeDefined();
    const messageId = retrying.items[0]?.messageId as string;
    const one = await get('/webhooks/deliveries', { messageId });
    expect(one.items.every((d) => d.messageId === messageId)).toBe(true);
  });
});
