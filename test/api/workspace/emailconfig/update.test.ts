import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { startSmtpServer } from '../../../helpers/smtp.ts';

let t: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url });
  await t.callK('/v2/organizations/documents/add', { organizationId: 'mailco', createOrganization: true, documents: [{ documentId: 'd' }] });
  await t.callK('/v2/users/add', { organizationId: 'mailco', users: [{ userId: 'ann', name: 'Ann', email: 'ann@mail.example' }] });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const path = '/v2/workspace/emailconfig/update';

/** emailconfig/get and /update answer the key's mail settings (the fields read here). */
interface EmailConfig {
  useEmailService: boolean;
  emailServiceConfig: { fromCompany?: string };
}
const get = async () => dataOf<EmailConfig>(await t.callK('/v2/workspace/emailconfig/get', {}));

/** Adds a notification for ann with `headline`, and answers the mail it caused (or null after a grace period). */
async function notify(headline: string) {
  const res = await t.callK('/v2/notifications/add', {
    organizationId: 'mailco',
    documentId: 'd',
    actionUser: { userId: 'boss' },
    displayHeadlineMessageTemplate: headline,
    displayBodyMessage: 'body',
    notifyUsers: [{ userId: 'ann' }],
  });
  expect(res.status).toBe(200);
}

const mailed = (headline: string) => smtp.received.find((m) => m.decoded.includes(`Subject: ${headline}`));
/** Whether the call wrote mail: the outbox row is written in the request's own transaction. */
const queued = async (headline: string) => (await t.server.app.mail.list()).some((m) => m.subject === headline);

describe('/v2/workspace/emailconfig/update', () => {
  it('turns notification mail on for an existing key, with the key’s name on the server’s From and its address as Reply-To; off again stops it', async () => {
    expect((await get()).useEmailService).toBe(false);
    await notify('before-on');

    const on = await t.callK(path, { useEmailService: true, emailServiceConfig: { fromEmail: 'Team@Example.com', fromCompany: 'Example Team' } });
    expect(on.status).toBe(200);
    expect(resultOf(on).message).toBe('Email configuration updated successfully.');
    expect(dataOf<EmailConfig>(on)).toEqual({
      useEmailService: true,
      emailServiceConfig: { type: 'default', fromEmail: 'Team@Example.com', fromCompany: 'Example Team', apiKeyConfigured: false },
    });
    expect(await get()).toEqual(dataOf<EmailConfig>(on));

    await notify('while-on');
    const mail = await eventually(() => {
      const found = mailed('while-on');
      if (!found) throw new Error('no mail yet');
      return found;
    });
    expect(mail.to).toEqual(['ann@mail.example']);
    // the operator's address (MAIL_FROM's default) sends; the key's address only receives the replies (issue 42)
    expect(mail.from).toBe('no-reply@hearth.local');
    expect(mail.decoded).toMatch(/^From: Example Team <no-reply@hearth\.local>/im);
    expect(mail.decoded).toMatch(/^Reply-To: Team@Example\.com/im);

    expect((await t.callK(path, { useEmailService: false })).status).toBe(200);
    await notify('after-off');
    expect([await queued('before-on'), await queued('while-on'), await queued('after-off')]).toEqual([false, true, false]);
  });

  it('updates partially: a given field replaces, an empty string removes, the provider key is kept encrypted and only flagged', async () => {
    await t.callK(path, { emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.secret', commentTemplateId: 'c1', tagTemplateId: 't1' } });
    expect((await get()).emailServiceConfig).toEqual({
      type: 'thirdparty',
      fromEmail: 'Team@Example.com',
      fromCompany: 'Example Team',
      commentTemplateId: 'c1',
      tagTemplateId: 't1',
      apiKeyConfigured: true,
    });
    const [stored] = (await t.query<{ value_enc: string }>("SELECT value_enc FROM api_key_secrets WHERE name = 'email:apiKey'")) as [{ value_enc: string }];
    expect(stored.value_enc).not.toContain('SG.secret');

    const cleared = await t.callK(path, { emailServiceConfig: { apiKey: '', fromEmail: '', commentTemplateId: '', type: 'default' } });
    expect(dataOf<EmailConfig>(cleared)).toEqual({
      useEmailService: false,
      emailServiceConfig: { type: 'default', fromCompany: 'Example Team', tagTemplateId: 't1', apiKeyConfigured: false },
    });
  });

  it('refuses an empty update and bad fields with clear errors, changing nothing', async () => {
    const before = await get();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'At least one of useEmailService or emailServiceConfig must be provided'],
      [{ useEmailService: 'yes' }, 'useEmailService must be a boolean, not a string.'],
      [{ emailServiceConfig: { fromEmail: 'not an address' } }, 'emailServiceConfig.fromEmail must be a valid email address'],
      [{ useEmailService: true, emailServiceConfig: { type: 'carrier-pigeon' } }, 'emailServiceConfig.type must be one of: default, thirdparty, sendgrid.'],
      [{ emailServiceConfig: 'x' }, 'emailServiceConfig must be an object, not a string.'],
    ];
    for (const [data, message] of cases) {
      const res = await t.callK(path, data);
      expect({ data, status: res.status, error: errorOf(res) }).toEqual({
        data,
        status: 400,
        error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining(message) },
      });
    }
    expect(await get()).toEqual(before);
  });

  it("changes only the calling key's configuration", async () => {
    const other = await createWorkspace(t);
    await t.callPublic(path, { useEmailService: true, emailServiceConfig: { fromCompany: 'Other' } }, other.headersK);
    expect((await get()).emailServiceConfig.fromCompany).toBe('Example Team');
    expect((await get()).useEmailService).toBe(false);
  });
});
