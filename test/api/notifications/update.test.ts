import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { NotificationItem } from '../../../server/services/notifications.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/notifications/add', {
    organizationId: 'acme',
    documentId: 'd',
    notificationId: 'n1',
    actionUser: { userId: 'sys' },
    displayHeadlineMessageTemplate: 'old',
    displayBodyMessage: 'old body',
    notifyAll: false,
    notifyUsers: [{ userId: 'ann' }, { userId: 'bob' }],
  });
});
afterAll(() => t.close());

const get = async () =>
  dataOf<NotificationItem[]>(await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'd', notificationIds: ['n1'] }))[0]!;

describe('/v2/notifications/update', () => {
  it('edits content and read state per user', async () => {
    const res = await t.callK('/v2/notifications/update', {
      organizationId: 'acme',
      notifications: [{ id: 'n1', displayHeadlineMessageTemplate: 'new', displayBodyMessage: 'new body', readByUserIds: ['ann', 'bob'] }, { id: 'missing' }],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Notification(s) updated successfully.',
      data: { n1: { success: true, message: 'Notification updated.' }, missing: { success: false, message: 'Failed to update notification.' } },
    });
    expect(await get()).toMatchObject({ displayHeadlineMessageTemplate: 'new', displayBodyMessage: 'new body', readByUserIds: ['ann', 'bob'] });
    await t.callK('/v2/notifications/update', { organizationId: 'acme', notifications: [{ id: 'n1', unreadByUserIds: ['bob'] }] });
    expect((await get()).readByUserIds).toEqual(['ann']);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/notifications/update', { organizationId: 'acme', notifications: [{}] })).message).toBe(
      'notifications[0].id is required.',
    );
    const other = await createWorkspace(t);
    const res = await t.callPublic(
      '/v2/notifications/update',
      { organizationId: 'acme', notifications: [{ id: 'n1', displayBodyMessage: 'hijacked' }] },
      other.headersK,
    );
    expect(dataOf<Outcomes>(res).n1!.success).toBe(false);
    expect((await get()).displayBodyMessage).toBe('new body');
  });
});
