import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, eventually, pgTablesHolding, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';
import { startSmtpServer } from '../../helpers/smtp.ts';
import type { NotificationItem } from '../../../server/services/notifications.ts';
import type { authTokensAnswer } from '../../../shared/schemas/answers.ts';
import { sqliteEngineOf } from '../../../server/db/repos/index.ts';

let t: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url });
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [
      { documentId: 'doc', accessType: 'organizationPrivate' },
      { documentId: 'secret', accessType: 'restricted' },
    ],
  });
  await t.callK('/v2/users/add', {
    organizationId: 'acme',
    users: [
      { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
      { userId: 'cat', name: 'Cat' },
    ],
  });
  await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'secret', users: [{ userId: 'ann' }] });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const base = {
  organizationId: 'acme',
  documentId: 'doc',
  actionUser: { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
  displayHeadlineMessageTemplate: '{actionUser} mentioned you',
  displayBodyMessage: 'Look at this',
  notifyUsers: [] as unknown[],
};
const add = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/notifications/add', { ...base, ...data }, headers);
const byId = async (notificationId: string, documentId = 'doc') => {
  const res = await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId, notificationIds: [notificationId] });
  return dataOf<NotificationItem[]>(res)[0]!;
};

describe('/v2/notifications/add', () => {
  it('notifies everyone with access to the document by default, except the acting user', async () => {
    const res = await add({ notificationId: 'n-all' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Notification added successfully.',
      data: { success: true, message: 'Notification added successfully.', notificationId: 'n-all' },
    });
    const stored = await byId('n-all');
    expect(Object.keys(stored.notifyUsersByUserId).sort()).toEqual(['bob', 'cat']);
    expect(Object.keys(stored.notifyUsers)).toHaveLength(2);
    expect(Object.keys(stored.notifyUsers)[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(stored).toMatchObject({
      id: 'n-all',
      notificationSource: 'custom',
      actionUser: { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      displayHeadlineMessageTemplate: '{actionUser} mentioned you',
      displayBodyMessage: 'Look at this',
      metadata: { apiKey: t.credentials.apiKey, documentId: 'doc', organizationId: 'acme' },
    });
    expect(Math.abs(stored.timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('with notifyAll false notifies only notifyUsers', async () => {
    await add({ notificationId: 'n-some', notifyAll: false, notifyUsers: [{ userId: 'cat' }, { userId: 'outsider', name: 'Out' }] });
    expect(Object.keys((await byId('n-some')).notifyUsersByUserId).sort()).toEqual(['cat', 'outsider']);
  });

  it('verifyUserPermissions drops recipients without access', async () => {
    await add({
      notificationId: 'n-verify',
      documentId: 'secret',
      notifyAll: false,
      verifyUserPermissions: true,
      notifyUsers: [{ userId: 'ann' }, { userId: 'bob' }, { userId: 'outsider' }],
    });
    expect(Object.keys((await byId('n-verify', 'secret')).notifyUsersByUserId)).toEqual(['ann']);
    // notifyAll on a restricted document reaches only its members
    await add({ notificationId: 'n-restricted', documentId: 'secret', actionUser: { userId: 'bob' } });
    expect(Object.keys((await byId('n-restricted', 'secret')).notifyUsersByUserId)).toEqual(['ann']);
  });

  it('is idempotent with a notificationId', async () => {
    await add({ notificationId: 'n-once', notifyAll: false, notifyUsers: [{ userId: 'bob' }] });
    const again = await add({ notificationId: 'n-once', notifyAll: false, notifyUsers: [{ userId: 'cat' }], displayBodyMessage: 'changed' });
    expect(again.status).toBe(200);
    expect(dataOf<{ message: string }>(again).message).toBe('Notification already exists.');
    const stored = await byId('n-once');
    expect(stored.displayBodyMessage).toBe('Look at this');
    expect(Object.keys(stored.notifyUsersByUserId)).toEqual(['bob']);
    const all = await t.callK('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc', notificationIds: ['n-once'] });
    expect(dataOf(all)).toHaveLength(1);
  });

  it('generates a 16-digit id when none is given', async () => {
    const res = await add({ notifyAll: false, notifyUsers: [{ userId: 'bob' }] });
    expect(dataOf<{ notificationId: string }>(res).notificationId).toMatch(/^[1-9]\d{15}$/);
  });

  it('resolver mode needs no headline or body and stores no personal data of the action user', async () => {
    const res = await t.callK('/v2/notifications/add', {
      organizationId: 'acme',
      documentId: 'doc',
      notificationId: 'n-resolver',
      isNotificationResolverUsed: true,
      actionUser: { userId: 'zoe', name: 'Zoe Secret', email: 'zoe.secret@example.com' },
      displayHeadlineMessageTemplateData: { actionUser: { userId: 'zoe', name: 'Zoe Secret' }, project: 'Apollo' },
      notifyAll: false,
      notifyUsers: [{ userId: 'bob' }],
    });
    expect(res.status).toBe(200);
    const stored = await byId('n-resolver');
    expect(stored.actionUser).toEqual({ userId: 'zoe' });
    expect(stored.displayHeadlineMessageTemplateData).toEqual({ project: 'Apollo' });
    expect(stored.isNotificationResolverUsed).toBe(true);
    if (t.server.app.storage.engine.kind === 'postgres') {
      // no row of the database holds them (the scan does find what the notification keeps)
      expect(await pgTablesHolding(t, 'zoe.secret@example.com')).toEqual([]);
      expect(await pgTablesHolding(t, 'Zoe Secret')).toEqual([]);
      expect(await pgTablesHolding(t, 'Apollo')).toContain('notifications');
    } else {
      sqliteEngineOf(t.server.app.storage).main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      const bytes = readFileSync(join(t.dataDir, 'hearth.db'));
      expect(bytes.includes('zoe.secret@example.com')).toBe(false);
      expect(bytes.includes('Zoe Secret')).toBe(false);
    }
  });

  it('stores source, source data, location and context', async () => {
    await add({
      notificationId: 'n-src',
      notificationSource: 'comment',
      notificationSourceData: { commentId: 7 },
      locationId: 'loc-1',
      context: { access: { team: 'red', level: 3 } },
      notifyAll: false,
      notifyUsers: [{ userId: 'bob' }],
    });
    expect(await byId('n-src')).toMatchObject({
      notificationSource: 'comment',
      notificationSourceData: { commentId: 7 },
      locationId: 'loc-1',
      context: { access: { team: 'red', level: 3 } },
    });
  });

  it('context.access reaches only users whose context permissions include every key-value', async () => {
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'bob' }, permissions: { context: { access: { team: ['red'], level: 3 } } } });
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'cat' }, permissions: { context: { access: { team: 'red' } } } });
    await add({ notificationId: 'n-ctx', context: { access: { team: 'red', level: 3 } } });
    expect(Object.keys((await byId('n-ctx')).notifyUsersByUserId)).toEqual(['bob']);
  });

  it('context.access keys named like Object.prototype members are keys like any other (was a 500)', async () => {
    // found by the atomicity sweep (seed 267695546): a recipient without context permissions made the check look
    // up Object.prototype.constructor
    await t.callK('/v2/auth/permissions/add', { user: { userId: 'cat' }, permissions: { context: { access: { constructor: 'x', toString: 'y' } } } });
    const res = await add({ notificationId: 'n-proto', context: { access: { constructor: 'x', toString: 'y' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys((await byId('n-proto')).notifyUsersByUserId)).toEqual(['cat']);
    const none = await add({ notificationId: 'n-proto-2', context: { access: { hasOwnProperty: 'z' } } });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect((await byId('n-proto-2')).notifyUsersByUserId).toEqual({});
  });

  it('validates the input', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ displayHeadlineMessageTemplate: undefined }, 'displayHeadlineMessageTemplate is required unless isNotificationResolverUsed is true.'],
      [{ displayBodyMessage: undefined }, 'displayBodyMessage is required unless isNotificationResolverUsed is true.'],
      [{ notificationId: 'bad id!' }, 'notificationId may contain only letters, digits, _ and -.'],
      [{ actionUser: undefined }, 'actionUser is required.'],
      [{ notifyUsers: undefined }, 'notifyUsers is required.'],
      [{ notificationSource: 'email' }, 'notificationSource must be one of: custom, comment, huddle, crdt.'],
      [{ context: { team: 'red' } }, 'context.access is required.'],
      [{ notifyUsers: [{ name: 'x' }] }, 'notifyUsers[0].userId is required.'],
    ];
    for (const [data, message] of cases) {
      const res = await add(data);
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({ data, status: 400, error: { status: 'INVALID_ARGUMENT', message } });
    }
    const missingDoc = await add({ documentId: 'nope' });
    expect(missingDoc.status).toBe(404);
    expect((await add({ documentId: 'made-here', createDocument: true, notifyAll: false })).status).toBe(200);
  });

  it('keeps API keys apart', async () => {
    const other = await createWorkspace(t);
    const res = await add({ notificationId: 'n-foreign' }, other.headersK);
    expect(res.status).toBe(404);
    const theirs = await t.callPublic('/v2/notifications/get', { organizationId: 'acme', documentId: 'doc' }, other.headersK);
    expect(dataOf(theirs)).toEqual([]);
  });
});

describe('notification e-mail', () => {
  it('mails recipients with an e-mail address when the key uses the e-mail service, honouring their setting', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'owner@example.com', type: 'testing', useEmailService: true });
    const apiKey = dataOf<{ apiKey: string }>(created).apiKey;
    const token = dataOf<z.infer<typeof authTokensAnswer>>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token;
    const K = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token };
    await t.callK('/v2/organizations/documents/add', { organizationId: 'mailco', createOrganization: true, documents: [{ documentId: 'd' }] }, K);
    await t.callK(
      '/v2/users/add',
      {
        organizationId: 'mailco',
        users: [
          { userId: 'ann', name: 'Ann', email: 'ann@mail.example' },
          { userId: 'muted', email: 'muted@mail.example' },
        ],
      },
      K,
    );
    await t.callK('/v2/notifications/config/set', { organizationId: 'mailco', userIds: ['muted'], config: { email: 'NONE' } }, K);
    const res = await t.callK(
      '/v2/notifications/add',
      {
        ...base,
        organizationId: 'mailco',
        documentId: 'd',
        actionUser: { userId: 'boss', name: 'The Boss' },
        displayHeadlineMessageTemplate: '{actionUser} assigned {task} to you',
        displayHeadlineMessageTemplateData: { task: 'the report' },
      },
      K,
    );
    expect(res.status).toBe(200);
    const mail = await eventually(() => {
      const found = smtp.received.find((m) => m.to.includes('ann@mail.example'));
      if (!found) throw new Error('no mail yet');
      return found;
    });
    expect(mail.decoded).toContain('Subject: The Boss assigned the report to you');
    expect(mail.decoded).toContain('Look at this');
    expect(smtp.received.some((m) => m.to.includes('muted@mail.example'))).toBe(false);
    // the default key does not use the e-mail service: nothing was mailed for its notifications
    expect(smtp.received.some((m) => m.to.includes('bob@example.com'))).toBe(false);
  });
});
