import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnnotation } from '../../../helpers/comments.ts';
import { dataOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

// The notification triggers of /v2/workspace/notificationconfig gate the notification Hearth makes by itself: a
// comment's @mention (docs/decisions.md, issue 45).

interface NotificationItem {
  notificationSourceData: { annotationId?: string };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
  await t.callK('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'ann', name: 'Ann', email: 'ann@example.com' }, { userId: 'bob' }] });
});
afterAll(() => t.close());

const setTriggers = async (triggers: Record<string, boolean>) => {
  const res = await t.callK('/v2/workspace/notificationconfig/update', { notificationServiceConfig: { triggers } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** Bob mentions Ann in a new thread and in a reply: how many notifications Ann got for that thread. */
async function mentionsMade(): Promise<number> {
  const { annotationId } = await addAnnotation(t, {
    location: { id: 'L' },
    commentData: [{ commentText: 'hi @ann', from: { userId: 'bob' }, taggedUserContacts: [{ userId: 'ann' }] }],
  });
  const reply = await t.callK('/v2/commentannotations/comments/add', {
    organizationId: 'acme',
    annotationId,
    commentData: [{ commentText: 'again @ann', from: { userId: 'bob' }, taggedUserContacts: [{ userId: 'ann' }] }],
  });
  expect(reply.status).toBe(200);
  const all = dataOf<NotificationItem[]>(await t.callK('/v2/notifications/get', { organizationId: 'acme', userId: 'ann' }));
  return all.filter((n) => n.notificationSourceData.annotationId === annotationId).length;
}

describe('notification triggers', () => {
  it('a key that never set triggers gets mention notifications', async () => {
    expect(await mentionsMade()).toBe(2);
  });

  it('mention off stops them, on brings them back', async () => {
    await setTriggers({ mention: false });
    expect(await mentionsMade()).toBe(0);
    await setTriggers({ mention: true });
    expect(await mentionsMade()).toBe(2);
  });

  it('comment off stops every notification about comments, mentions included', async () => {
    await setTriggers({ comment: false });
    expect(await mentionsMade()).toBe(0);
    await setTriggers({ comment: true });
    expect(await mentionsMade()).toBe(2);
  });

  it('the triggers of kinds Hearth does not make (reply, statusChange, reaction, huddle) leave mentions alone', async () => {
    await setTriggers({ reply: false, statusChange: false, reaction: false, huddle: false });
    expect(await mentionsMade()).toBe(2);
  });

  it('notifications the app adds itself are not gated', async () => {
    await setTriggers({ comment: false, mention: false });
    const res = await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'doc',
      actionUser: { userId: 'bob' },
      displayHeadlineMessageTemplate: 'hello from the app',
      displayBodyMessage: 'body',
      notifyUsers: [{ userId: 'ann' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const all = dataOf<Array<{ displayHeadlineMessageTemplate?: string }>>(await t.callK('/v2/notifications/get', { organizationId: 'acme', userId: 'ann' }));
    expect(all.filter((n) => n.displayHeadlineMessageTemplate === 'hello from the app')).toHaveLength(1);
  });
});
