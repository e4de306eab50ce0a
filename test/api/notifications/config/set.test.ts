import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import type { NotificationItem } from '../../../../server/services/notifications.ts';

let t: TestServer;
beforeAll(async () => {
  // testing mode: its clock can be moved (the updatedAt case)
  t = await startTestServer({ testing: true });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann' }, { userId: 'bob' }, { userId: 'cat' }] });
});
afterAll(() => t.close());

const notify = (notificationId: string, named: string[]) =>
  t.callK('/v2/notifications/add', {
    organizationId: 'acme',
    documentId: 'd',
    notificationId,
    actionUser: { userId: 'sys' },
    displayHeadlineMessageTemplate: 'h',
    displayBodyMessage: 'b',
    notifyUsers: named.map((userId) => ({ userId })),
  });
const inbox = async (userId: string) => dataOf<NotificationItem[]>(await t.callK('/v2/notifications/get', { organizationId: 'acme', userId })).map((n) => n.id);

describe('/v2/notifications/config/set', () => {
  it("stamps the setting with Hearth's clock (testing mode can move it), on both engines", async () => {
    const day = 86_400_000;
    const moved = await fetch(`${t.url}/testing/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { advanceMs: 10 * day } }),
    });
    expect(moved.status).toBe(200);
    try {
      await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['dan'], config: { email: 'NONE' } });
      const [row] = await t.query<{ at: number }>("SELECT updated_at AS at FROM notification_configs WHERE user_id = 'dan'");
      expect(Number(row?.at) - Date.now()).toBeGreaterThan(10 * day - 60_000);
    } finally {
      await fetch(`${t.url}/testing/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: { reset: true } }),
      });
    }
  });

  it("sets users' channels; the inbox setting decides what reaches them (NONE: nothing, MINE: only when named)", async () => {
    const res = await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['bob'], documentIds: ['d'], config: { inbox: 'NONE' } });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'User config set successfully.',
      data: [{ success: true, userId: 'bob', documentId: 'd', message: 'User config set successfully.' }],
    });
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['cat'], config: { inbox: 'MINE' } });

    await notify('broadcast', []);
    await notify('to-cat', ['cat']);
    expect(await inbox('ann')).toEqual(['to-cat', 'broadcast']);
    expect(await inbox('bob')).toEqual([]);
    expect(await inbox('cat')).toEqual(['to-cat']);
  });

  it("a document's setting of one channel leaves the others as the organization's: what reaches the inbox follows", async () => {
    // dan: MINE for the whole organization, then the document sets only e-mail: the inbox stays MINE there
    await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'dan' }] });
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['dan'], config: { inbox: 'MINE' } });
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['dan'], documentIds: ['d'], config: { email: 'NONE' } });
    await notify('broadcast-2', []);
    await notify('to-dan', ['dan']);
    expect(await inbox('dan')).toEqual(['to-dan']);
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: {} }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'config must set at least one of inbox, email or slack.',
    });
    expect(errorOf(await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: { inbox: 'SOME' } })).message).toBe(
      'config.inbox must be one of: ALL, MINE, NONE.',
    );
    expect((await t.callK('/v2/notifications/config/set', { organizationId: 'nope', userIds: ['ann'], config: { inbox: 'ALL' } })).status).toBe(404);
  });

  it("cannot change another API key's settings", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: { inbox: 'NONE' } }, other.headersK);
    expect(res.status).toBe(404);
    await notify('still-there', []);
    expect(await inbox('ann')).toContain('still-there');
  });
});
