// Issue 42, point 4: an API key cannot make the operator's SMTP relay send in another domain's name. The envelope
// sender (MAIL FROM) and the From address are the server's MAIL_FROM whatever emailconfig says; the key's fromEmail
// becomes Reply-To and its fromCompany the display name. How many people a key mails is limited per call and per
// window, and a refused call writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, eventually, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { startSmtpServer } from '../../../helpers/smtp.ts';

let t: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
const people = ['victim', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({
    smtpUrl: smtp.url,
    mailFrom: 'Acme Ops <ops@hearth.example>',
    mailRecipientsPerCall: 3,
    rateLimits: { mailRecipientsPerKey: { max: 5, windowMs: 60 * 60_000 } },
  });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'spoof', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/users/add', {
    organizationId: 'spoof',
    users: people.map((userId) => ({ userId, name: userId, email: `${userId}@victim.example` })),
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const notify = (headline: string, userIds: string[]) =>
  t.callK('/v2/notifications/add', {
    organizationId: 'spoof',
    documentId: 'd',
    actionUser: { userId: 'boss' },
    displayHeadlineMessageTemplate: headline,
    displayBodyMessage: 'Please update your bank details.',
    notifyAll: false,
    notifyUsers: userIds.map((userId) => ({ userId })),
  });

const queued = async (headline: string) => (await t.server.app.mail.list()).filter((m) => m.subject === headline).length;
const headerOf = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(raw)?.[1] ?? null;

describe('notification mail of an API key (issue 42)', () => {
  it("goes out in the server's name: MAIL FROM and From are MAIL_FROM's address, the key's address is only Reply-To", async () => {
    const config = await t.callK('/v2/workspace/emailconfig/update', {
      useEmailService: true,
      emailServiceConfig: { fromEmail: 'payroll@corp.example', fromCompany: 'Payroll <payroll@corp.example>' },
    });
    expect(config.status).toBe(200);

    expect((await notify('Salary update', ['victim'])).status).toBe(200);
    const mail = await eventually(() => {
      const found = smtp.received.find((m) => m.decoded.includes('Subject: Salary update'));
      if (!found) throw new Error('not relayed yet');
      return found;
    });
    expect(mail.to).toEqual(['victim@victim.example']);
    expect(mail.from).toBe('ops@hearth.example');
    // the display name is the key's, quoted, without the angle brackets that would make it an address of its own
    expect(headerOf(mail.decoded, 'From')).toBe('"Payroll payroll@corp.example" <ops@hearth.example>');
    expect(headerOf(mail.decoded, 'Reply-To')).toBe('payroll@corp.example');
    expect(headerOf(mail.decoded, 'Sender')).toBeNull();
    // the admin mailbox and `hearth mail list` show what is sent
    const stored = (await t.server.app.mail.list()).find((m) => m.subject === 'Salary update');
    expect(stored?.from).toEqual({ name: 'Payroll payroll@corp.example', address: 'ops@hearth.example' });
    expect(stored?.replyTo).toBe('payroll@corp.example');
  });

  it("a key without a display name sends under the server's", async () => {
    await t.callK('/v2/workspace/emailconfig/update', { emailServiceConfig: { fromCompany: '' } });
    expect((await notify('No name', ['victim'])).status).toBe(200);
    const mail = await eventually(() => {
      const found = smtp.received.find((m) => m.decoded.includes('Subject: No name'));
      if (!found) throw new Error('not relayed yet');
      return found;
    });
    expect(headerOf(mail.decoded, 'From')).toBe('Acme Ops <ops@hearth.example>');
    expect(mail.from).toBe('ops@hearth.example');
  });

  it('refuses a call that would mail more recipients than one call may, and writes nothing of it', async () => {
    const res = await notify('Too many at once', ['p1', 'p2', 'p3', 'p4']);
    expect(res.status).toBe(429);
    expect(errorOf(res)).toEqual({
      status: 'RESOURCE_EXHAUSTED',
      message: 'This call would e-mail 4 recipients; an API key may e-mail at most 3 per call. Nothing was sent.',
    });
    expect(await queued('Too many at once')).toBe(0);
    const inbox = await t.callK('/v2/notifications/get', { organizationId: 'spoof', userId: 'p1' });
    expect(JSON.stringify(inbox.body)).not.toContain('Too many at once');
  });

  it("refuses a call past the key's recipients per window, with a clear error", async () => {
    // two mails so far in this window (the tests above); three more reach the limit of five
    expect((await notify('Within the window', ['p1', 'p2', 'p3'])).status).toBe(200);
    const res = await notify('Past the window', ['p4']);
    expect(res.status).toBe(429);
    expect(errorOf(res)).toEqual({
      status: 'RESOURCE_EXHAUSTED',
      message: 'E-mail limit reached: an API key may e-mail at most 5 recipients per 3600 s. Nothing was sent; try again later.',
    });
    expect([await queued('Within the window'), await queued('Past the window')]).toEqual([3, 0]);
    // a notification that mails nobody is not limited
    await t.callK('/v2/workspace/emailconfig/update', { useEmailService: false });
    expect((await notify('Inbox only', ['p4', 'p5', 'p6', 'victim'])).status).toBe(200);
  });
});
