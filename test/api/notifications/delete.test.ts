import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { NotificationItem } from '../../../server/services/notifications.ts';
import type { Outcomes } from '../../../server/services/organizations.ts';

let t: TestServer;
afterAll(() => t?.close());
beforeEach(async () => {
  await t?.close();
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'd1' }, { documentId: 'd2' }],
  });
  const add = (notificationId: string, documentId: string, locationId: string, users: string[]) =>
    t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId,
      notificationId,
      locationId,
      actionUser: { userId: 'sys' },
      displayHeadlineMessageTemplate: 'h',
      displayBodyMessage: 'b',
      notifyAll: false,
      notifyUsers: users.map((userId) => ({ userId })),
    });
  await add('a', 'd1', 'L1', ['ann']);
  await add('b', 'd1', 'L2', ['bob']);
  await add('c', 'd2', 'L1', ['ann', 'bob']);
});

const remaining = async () => {
  const docs = await Promise.all(['d1', 'd2'].map((documentId) => t.callK('/v2/notifications/get', { organizationId: 'acme', documentId })));
  return docs.flatMap((r) => dataOf<NotificationItem[]>(r).map((n) => n.id)).sort();
};

describe('/v1/notifications/delete', () => {
  it('deletes by ids, reporting missing ones as failed inside a success envelope', async () => {
    const res = await t.callK('/v1/notifications/delete', { organizationId: 'acme', notificationIds: ['a', 'zzz'] });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Notification(s) deleted successfully.',
      data: { a: { success: true, message: 'Notification deleted.' }, zzz: { success: false, message: 'Failed to delete notification.' } },
    });
    expect(await remaining()).toEqual(['b', 'c']);
  });

  it('combines filters: document and location, user and document', async () => {
    await t.callK('/v1/notifications/delete', { organizationId: 'acme', documentId: 'd1', locationId: 'L1' });
    expect(await remaining()).toEqual(['b', 'c']);
    await t.callK('/v1/notifications/delete', { organizationId: 'acme', userId: 'bob', documentId: 'd2' });
    expect(await remaining()).toEqual(['b']);
  });

  it('does not delete an id that fails another filter', async () => {
    const res = await t.callK('/v2/notifications/delete', { organizationId: 'acme', documentId: 'd2', notificationIds: ['a'] });
    expect(dataOf<Outcomes>(res).a!.success).toBe(false);
    expect(await remaining()).toEqual(['a', 'b', 'c']);
  });

  it('removes the recipients too: the inbox no longer lists it', async () => {
    await t.callK('/v1/notifications/delete', { organizationId: 'acme', notificationIds: ['c'] });
    const inbox = await t.callK('/v2/notifications/get', { organizationId: 'acme', userId: 'ann' });
    expect(dataOf<NotificationItem[]>(inbox).map((n) => n.id)).toEqual(['a']);
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v1/notifications/delete', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'organizationId is required.' });
    const other = await createWorkspace(t);
    await t.callPublic('/v1/notifications/delete', { organizationId: 'acme' }, other.headersK);
    expect(await remaining()).toEqual(['a', 'b', 'c']);
  });
});
