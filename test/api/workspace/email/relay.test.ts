import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDirWithMigrations, journal } from '../../../cli/data-dirs.ts';
import { runHearth, tempDirs } from '../../../helpers/cli.ts';
import { eventually, startTestServer } from '../../../helpers/server.ts';
import { startSmtpServer } from '../../../helpers/smtp.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const path = '/v2/workspace/email/send-login-link';
const OWNER = 'owner@hearth.local';
const ask = (t: Awaited<ReturnType<typeof startTestServer>>) => t.callPublic(path, { email: OWNER, continueUrl: 'http://localhost/' });
const tokenOf = (html: string) => /token=([\w-]+)/.exec(html)?.[1] as string;

describe('mail relay over SMTP', () => {
  it('relays only mail written while SMTP is set: mail kept before stays in the local mailbox', async () => {
    const dataDir = dirs.make();
    const smtp = await startSmtpServer();
    const t = await startTestServer({ dataDir });
    try {
      expect((await ask(t)).status).toBe(200);
      expect(await t.server.app.mail.list()).toMatchObject([{ kind: 'login-link', status: 'kept' }]);
      await t.restart({ smtpUrl: smtp.url });
      expect((await ask(t)).status).toBe(200);
      await eventually(async () => expect((await t.server.app.mail.list()).map((m) => m.status)).toEqual(['sent', 'kept']));
      // one message went out: the new one, with a link that still works; the kept one never will
      expect(smtp.received).toHaveLength(1);
      const [sent, kept] = await t.server.app.mail.list();
      expect(smtp.received[0]!.decoded).toContain(tokenOf(sent!.html));
      expect(smtp.received[0]!.decoded).not.toContain(tokenOf(kept!.html));
      // a restart with SMTP still set relays the next one, and still not the kept one (queued mail goes out oldest
      // first: once the newest is sent, nothing older was left waiting)
      await t.restart({ smtpUrl: smtp.url });
      expect((await ask(t)).status).toBe(200);
      await eventually(async () => expect((await t.server.app.mail.list()).map((m) => m.status)).toEqual(['sent', 'sent', 'kept']));
      expect(smtp.received).toHaveLength(2);
    } finally {
      await t.close();
      await smtp.close();
    }
  });

  it('never sends a login link that was used or expired before it went out, and says why in the mailbox', async () => {
    const dataDir = dirs.make();
    const down = await startSmtpServer();
    const url = down.url;
    await down.close();
    const t = await startTestServer({ dataDir, smtpUrl: url });
    try {
      expect((await ask(t)).status).toBe(200);
      // the SMTP server is down: the relay failed once, and the mailbox shows it
      const failed = await eventually(async () => {
        const [mail] = await t.server.app.mail.list();
        expect(mail).toMatchObject({ status: 'queued', attempts: 1, lastError: expect.stringMatching(/ECONNREFUSED|connect/) });
        return mail!;
      });
      // meanwhile the owner used the link (read from the admin mailbox)
      const used = await fetch(`${t.url}/auth/email-link`, { method: 'POST', body: new URLSearchParams({ token: tokenOf(failed.html) }), redirect: 'manual' });
      expect(used.status).toBe(303);
      // an SMTP server is reachable now: the next relay skips the spent link
      const back = await startSmtpServer();
      try {
        await t.restart({ smtpUrl: back.url });
        await eventually(async () =>
          expect((await t.server.app.mail.list())[0]).toMatchObject({
            status: 'skipped',
            lastError: 'not sent: the login link was used before it could be relayed',
          }),
        );
        expect(back.received).toHaveLength(0);
      } finally {
        await back.close();
      }
    } finally {
      await t.close();
    }
  });

  it('sorts mail written before relay states existed: a mail a relay already tried stays queued, one never tried is kept', async () => {
    const dataDir = join(dirs.make(), 'data');
    const before = journal().findIndex((entry) => entry.tag.endsWith('mail_relay_state'));
    expect(before).toBeGreaterThan(0);
    dataDirWithMigrations(dataDir, dirs.make(), before);
    const sqlite = new Database(join(dataDir, 'hearth.db'));
    const insert = sqlite.prepare(
      "INSERT INTO mail_outbox (id, kind, to_address, subject, body_enc, status, attempts, created_at) VALUES (?, 'login-link', 'a@example.com', 's', 'x', ?, ?, 1)",
    );
    insert.run('never-tried', 'stored', 0);
    insert.run('tried', 'stored', 2);
    insert.run('done', 'sent', 1);
    sqlite.close();
    // SQLite's migration 0014 over a data dir an older Hearth left (PostgreSQL's schema had relay states from its
    // first migration): the server stays on the data dir's SQLite in the PostgreSQL run too
    const t = await startTestServer({ dataDir }, { engine: 'sqlite' });
    try {
      const rows = await t.query('SELECT id, status FROM mail_outbox ORDER BY id');
      expect(rows).toEqual([
        { id: 'done', status: 'sent' },
        { id: 'never-tried', status: 'kept' },
        { id: 'tried', status: 'queued' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('hearth mail list shows each mail with its relay state and last error', async () => {
    const dataDir = dirs.make();
    const t = await startTestServer({ dataDir });
    try {
      try {
        expect((await ask(t)).status).toBe(200);
      } finally {
        await t.server.close();
      }
      // the server's database: the data dir's SQLite, or its PostgreSQL database (DATABASE_URL)
      const databaseUrl = t.server.app.config.databaseUrl;
      const env = databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl };
      const listed = await runHearth(['mail', 'list', '--data-dir', dataDir, '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      expect(rows).toMatchObject([{ kind: 'login-link', to: OWNER, status: 'kept', attempts: 0, lastError: null }]);
      // no body, so no login link, in the listing
      expect(listed.stdout).not.toContain('token=');
      const plain = await runHearth(['mail', 'list', '--data-dir', dataDir], { env });
      expect(plain.stdout).toMatch(/kept\s+owner@hearth\.local\s+Your Hearth sign-in link/);
    } finally {
      await t.close();
    }
  });
});
