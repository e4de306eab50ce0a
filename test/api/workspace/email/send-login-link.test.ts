import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, uniqueEmail } from '../../../helpers/factories.ts';
import { errorOf, eventually, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { startSmtpServer } from '../../../helpers/smtp.ts';

let t: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url, loginLinkAllowedHosts: ['console.example.com'] });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const path = '/v2/workspace/email/send-login-link';

type LinkRow = {
  id: string;
  workspaceId: string;
  email: string;
  tokenDigest: string;
  continueUrl: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
};

/** Login links written into the server's database as they would be stored, whichever the engine. */
async function insertLinks(rows: LinkRow[]) {
  await t.query(
    `INSERT INTO login_links (id, workspace_id, email, token_digest, continue_url, created_at, expires_at, used_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    rows.flatMap((r) => [r.id, r.workspaceId, r.email, r.tokenDigest, r.continueUrl, r.createdAt, r.expiresAt, r.usedAt]),
  );
}
const OWNER = 'owner@hearth.local';

describe('/v2/workspace/email/send-login-link', () => {
  it('delivers a one-time link over SMTP and into the outbox; opening it verifies the e-mail and continues', async () => {
    const continueUrl = `${t.url}/workspace?tab=keys`;
    const res = await t.callPublic(path, { email: OWNER, continueUrl });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { status: 'success', message: 'Login link sent successfully', data: null } });

    const mail = await eventually(() => {
      const found = smtp.received.find((m) => m.to.includes(OWNER));
      if (!found) throw new Error('not delivered yet');
      return found;
    });
    expect(mail.decoded).toContain('Subject: Your Hearth sign-in link');
    const link = mail.decoded.match(/http:\/\/127\.0\.0\.1:\d+\/auth\/email-link\?token=[A-Za-z0-9_-]+/)?.[0];
    expect(link).toBeDefined();

    // the outbox marks it sent once the SMTP server's last reply has come back, a moment after the server has it
    const outbox = await eventually(async () => {
      const rows = await t.server.app.mail.list();
      if (rows[0]?.status !== 'sent') throw new Error('not marked sent yet');
      return rows;
    });
    expect(outbox[0]).toMatchObject({ kind: 'login-link', to: OWNER, status: 'sent', attempts: 1 });
    expect(outbox[0]!.text).toContain(link);

    const status = async () => resultOf(await t.callPublic('/v2/workspace/email/status', { ownerEmail: OWNER })).message;
    expect(await status()).toBe('Email not yet verified');
    // opening the link shows a button; a GET, as a mail scanner's, uses nothing up
    for (let i = 0; i < 2; i++) {
      const opened = await fetch(link!, { redirect: 'manual' });
      expect(opened.status).toBe(200);
      const html = await opened.text();
      expect(html).toContain(`as <strong>${OWNER}</strong>`);
      expect(html).toMatch(
        /<form method="post" action="email-link"><input type="hidden" name="token" value="[\w-]+"><button type="submit">Continue<\/button><\/form>/,
      );
    }
    expect(await status()).toBe('Email not yet verified');
    // the button's POST (the form: a relative action, the token in the body) uses it up and continues
    const form = new URL('email-link', link!).href;
    expect(form).toBe(link!.split('?')[0]);
    const token = new URL(link!).searchParams.get('token')!;
    const post = () => fetch(form, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    const used = await post();
    expect(used.status).toBe(303);
    expect(used.headers.get('location')).toBe(continueUrl);
    expect(await status()).toBe('Email verified and workspace reactivated');

    for (const again of [await post(), await fetch(link!, { redirect: 'manual' })]) {
      expect(again.status).toBe(400);
      expect(await again.text()).toMatch(/invalid, used or expired/);
    }
  });

  it("serves the link's pages never framed, uncached, without referrer or script, and refuses bad tokens and forms", async () => {
    const ws = await createWorkspace(t);
    const token = 'a-token-of-our-own';
    const now = Date.now();
    const row = (id: string, tokenDigest: string, expiresAt: number) => ({
      id,
      workspaceId: ws.workspaceId,
      email: ws.ownerEmail,
      tokenDigest,
      continueUrl: `${t.url}/next`,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
    await insertLinks([
      row('page-live', t.server.app.secrets.digest(token), now + 60_000),
      row('page-expired', t.server.app.secrets.digest('expired-token'), now - 1),
    ]);
    const opened = await fetch(`${t.url}/auth/email-link?token=${token}`);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    expect(opened.headers.get('x-frame-options')).toBe('DENY');
    expect(opened.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
    expect(await opened.text()).not.toContain('<script');

    const form = `${t.url}/auth/email-link`;
    for (const bad of [`${form}?token=expired-token`, `${form}?token=unknown`, `${form}?token=`, form]) {
      const res = await fetch(bad);
      expect(res.status, bad).toBe(400);
      expect(await res.text()).toMatch(/invalid, used or expired/);
    }
    const refused = [
      new URLSearchParams({ token: 'expired-token' }),
      new URLSearchParams({ token: 'unknown' }),
      new URLSearchParams({ other: token }),
      // a form far over the limit is refused without reading it all
      new URLSearchParams({ token, padding: 'x'.repeat(100_000) }),
      '',
    ];
    for (const body of refused) {
      const res = await fetch(form, { method: 'POST', body, redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/invalid, used or expired/);
    }
    const rows = await t.query<{ id: string; usedAt: unknown }>('SELECT id, used_at AS "usedAt" FROM login_links WHERE workspace_id = ?', [ws.workspaceId]);
    expect(rows.map((r) => r.id)).toContain('page-live');
    expect(rows.every((r) => r.usedAt === null)).toBe(true);
    const used = await fetch(form, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    expect(used.status).toBe(303);
    expect(used.headers.get('location')).toBe(`${t.url}/next`);
  });

  it('deletes expired links (used or not) on the way, and keeps the others', async () => {
    const ws = await createWorkspace(t);
    const now = Date.now();
    const row = (id: string, expiresAt: number, usedAt: number | null) => ({
      id,
      workspaceId: ws.workspaceId,
      email: ws.ownerEmail,
      tokenDigest: `digest-${id}`,
      continueUrl: `${t.url}/`,
      createdAt: now - 2 * 3_600_000,
      expiresAt,
      usedAt,
    });
    await insertLinks([row('expired', now - 1_000, null), row('expired-used', now - 1_000, now - 5_000), row('live-used', now + 60_000, now - 5_000)]);
    expect((await t.callPublic(path, { email: uniqueEmail('nobody'), continueUrl: `${t.url}/` })).status).toBe(200);
    const left = await t.query<{ id: string }>('SELECT id FROM login_links WHERE workspace_id = ?', [ws.workspaceId]);
    expect(left.map((l) => l.id)).toEqual(['live-used']);
  });

  it('answers the same for an address that owns no workspace, and sends nothing', async () => {
    const before = (await t.server.app.mail.list()).length;
    const res = await t.callPublic(path, { email: uniqueEmail('stranger'), continueUrl: 'http://localhost:3000/' });
    expect(resultOf(res).message).toBe('Login link sent successfully');
    expect((await t.server.app.mail.list()).length).toBe(before);
  });

  it('allows localhost, the console host and configured hosts; refuses others', async () => {
    const ws = await createWorkspace(t);
    for (const continueUrl of ['http://localhost:5173/after', 'https://app.localhost/x', `${t.url}/`, 'https://console.example.com/welcome']) {
      expect((await t.callPublic(path, { email: ws.ownerEmail, continueUrl })).status).toBe(200);
    }
    for (const continueUrl of ['https://evil.example.com/', 'https://localhost.evil.com/', 'https://console.example.com.evil.io/']) {
      const res = await t.callPublic(path, { email: ws.ownerEmail, continueUrl });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'The continueUrl domain is not allowed.' });
    }
  });

  it('refuses an invalid URL, a disposable domain and missing fields', async () => {
    for (const continueUrl of ['not a url', 'javascript:alert(1)', 'ftp://localhost/file', '', '   ']) {
      const res = await t.callPublic(path, { email: OWNER, continueUrl });
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid url for continueUrl' });
    }
    const disposable = await t.callPublic(path, { email: 'x@mailinator.com', continueUrl: 'http://localhost/' });
    expect(errorOf(disposable)).toEqual({ status: 'INVALID_ARGUMENT', message: 'This email domain is not supported.' });
    expect(errorOf(await t.callPublic(path, { continueUrl: 'http://localhost/' })).message).toBe('email is required.');
    expect(errorOf(await t.callPublic(path, { email: OWNER })).message).toBe('continueUrl is required.');
  });
});

describe('login link rate limits', () => {
  it('limits per e-mail and per client address', async () => {
    const limited = await startTestServer({ rateLimits: { loginLinkPerEmail: { max: 2, windowMs: 60_000 }, loginLinkPerIp: { max: 3, windowMs: 60_000 } } });
    try {
      const send = (email: string) => limited.callPublic(path, { email, continueUrl: 'http://localhost/' });
      expect((await send('a@example.com')).status).toBe(200);
      expect((await send('a@example.com')).status).toBe(200);
      const perEmail = await send('a@example.com');
      expect(perEmail.status).toBe(429);
      expect(errorOf(perEmail)).toEqual({ status: 'RESOURCE_EXHAUSTED', message: 'Rate limit exceeded for this endpoint. Try again later.' });
      // the address budget (3) is now used up too, whatever the e-mail
      expect((await send('b@example.com')).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('without SMTP', () => {
  it('keeps the link in the local outbox', async () => {
    const local = await startTestServer();
    try {
      expect((await local.callPublic(path, { email: OWNER, continueUrl: 'http://localhost/' })).status).toBe(200);
      const [mail] = await local.server.app.mail.list();
      expect(mail).toMatchObject({ kind: 'login-link', to: OWNER, status: 'kept', attempts: 0 });
      expect(mail!.html).toMatch(/\/auth\/email-link\?token=/);
    } finally {
      await local.close();
    }
  });

  it('retries relay later when the SMTP server is down at first', async () => {
    const down = await startSmtpServer();
    const url = down.url;
    await down.close();
    const server = await startTestServer({ smtpUrl: url });
    try {
      expect((await server.callPublic(path, { email: OWNER, continueUrl: 'http://localhost/' })).status).toBe(200);
      await eventually(async () => expect((await server.server.app.mail.list())[0]).toMatchObject({ status: 'queued', attempts: 1 }));
      expect((await server.server.app.mail.list())[0]!.lastError).toBeTruthy();
    } finally {
      await server.close();
    }
  });
});
