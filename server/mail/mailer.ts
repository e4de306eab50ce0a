import { currentTime } from '../clock.ts';
import type { Transporter } from 'nodemailer';
import type { Storage } from '../db/repos/index.ts';
import type { MailRow, MailStatus, NewMail } from '../db/repos/mail.ts';
import { defaultConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import { heldBeforeAtStart, type LeaseDeps } from '../db/repos/lease.ts';
import { randomAlphanumeric, type Secrets } from '../security/secrets.ts';

export interface OutgoingMail {
  kind: string;
  to: string;
  /**
   * What an API key may say about the sender: a display name (the server's when absent) and the address replies go
   * to. The envelope sender and the From address are always the server's (`MAIL_FROM`): a tenant cannot make the
   * operator's relay send mail in another domain's name (issue 42).
   */
  from?: { name: string; address: string } | undefined;
  subject: string;
  text: string;
  html: string;
  workspaceId?: string | null;
  apiKeyId?: string | null;
  /** The login link the mail carries: never relayed once the link is used or expired. */
  loginLinkId?: string | null;
}

export interface StoredMail extends Omit<OutgoingMail, 'from'> {
  id: string;
  /** The From the relay sends: the server's address, with the key's display name when it set one. */
  from: { name: string; address: string };
  /** The key's own address, given as Reply-To; null when it set none. */
  replyTo: string | null;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

export interface Mailer {
  /**
   * Keeps the message in the outbox (in the caller's unit of work) and returns its id; with SMTP configured it is
   * queued for relay, which follows the commit (call `flush` after it); without, it stays in the local mailbox.
   */
  queue(mail: OutgoingMail): Promise<string>;
  /** Whether mail is relayed over SMTP (SMTP_URL is set). */
  readonly relaying: boolean;
  /** Relays what is waiting in the outbox over SMTP (no-op without SMTP). Called after commits. */
  flush(): void;
  /**
   * At the server's start: takes the lease length of the app's config, ends the holds the database's only instance
   * left on mail it was relaying when it stopped, so that mail goes out now rather than when its lease runs out (an
   * instance of a cluster only those whose lease ran out: live instances hold the rest); then flushes.
   */
  recover(deps: LeaseDeps): Promise<void>;
  /** In a cluster, every so often (lease-watch.ts): ends the holds whose lease ran out, then flushes. */
  takeBackExpired(): Promise<void>;
  list(options?: { limit?: number }): Promise<StoredMail[]>;
  close(graceMs?: number): Promise<void>;
}

const MAX_ATTEMPTS = 5;

/** How many mails one relay pass sends at the most before it lets the event loop breathe (it is woken again). */
const PASS_SIZE = 50;

/** `Name <address>` or a bare address (MAIL_FROM) as nodemailer's address object. */
export function parseMailbox(value: string): { name: string; address: string } {
  const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(value);
  if (!match) return { name: '', address: value.trim() };
  return { name: (match[1] ?? '').replace(/^"(.*)"$/, '$1'), address: (match[2] ?? '').trim() };
}

/**
 * A key's display name as the From shows it: control characters, angle brackets and quotes removed, so that a name
 * cannot carry an address of its own or break the header; cut at 100 characters.
 */
export function displayName(name: string): string {
  return (
    name
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
      .replace(/[\u0000-\u001f\u007f<>"]/g, '')
      .trim()
      .slice(0, 100)
  );
}

/**
 * The sender of an outbox row as it is relayed: From is the server's address, under the key's display name when it
 * set one (kept in from_name), else the server's; the key's address (kept in from_address) becomes Reply-To.
 */
function senderOf(row: { fromAddress: string | null; fromName: string | null }, server: { name: string; address: string }) {
  const name = row.fromName ? displayName(row.fromName) : '';
  return { from: { name: name || server.name, address: server.address }, replyTo: row.fromAddress };
}

/**
 * Outgoing mail. Every message is kept in the `mail_outbox` table first (the admin UI's mailbox shows it, so
 * a team without SMTP still reads its login links); with `SMTP_URL` set it is also relayed with nodemailer.
 * Relay happens after the write commits and never holds up the request that caused it. Only mail written while
 * SMTP is set is relayed: turning SMTP on later does not send what was kept before (old login links among it),
 * and a login link used or expired before its mail went out is not sent at all. nodemailer loads only then.
 */
export function createMailer(opts: { storage: Storage; secrets: Secrets; log: Logger; smtpUrl?: string | undefined; from: string }): Mailer {
  const { storage, secrets, log } = opts;
  const smtpUrl = opts.smtpUrl;
  const server = parseMailbox(opts.from);
  let transport: Promise<Transporter> | null = null;
  const transportNow = () => (transport ??= import('nodemailer').then((m) => m.default.createTransport(smtpUrl)));
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelay = 5_000;
  // How long a relay holds a mail it took (config.leases.mailMs, told at the start): past that, another instance of
  // a cluster relays it (its holder died). A relay that outlives it may send the mail twice, which SMTP's
  // at-least-once delivery allows; its outcome is then dropped (setState's fence).
  let leaseMs = defaultConfig().leases.mailMs;
  /** Tries the outbox again later, backing off up to ten minutes, while the SMTP server is unreachable. */
  const scheduleRetry = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      flush();
    }, retryDelay);
    retryTimer.unref();
    retryDelay = Math.min(retryDelay * 2, 600_000);
  };

  /** Why a queued mail must not go out any more (its login link was used or expired), or null. */
  const spent = async (row: MailRow): Promise<string | null> => {
    if (row.loginLinkId === null) return null;
    const link = await storage.mail.loginLink(row.loginLinkId);
    if (!link || link.expiresAt <= currentTime()) return 'not sent: the login link expired before it could be relayed';
    if (link.usedAt !== null) return 'not sent: the login link was used before it could be relayed';
    return null;
  };

  const relayPending = async () => {
    if (!smtpUrl) return;
    for (let n = 0; n < PASS_SIZE; n++) {
      if (closed) return;
      const now = currentTime();
      const row = await storage.mail.claimQueued(MAX_ATTEMPTS, now, now + leaseMs);
      if (!row) return;
      /** Records the outcome, unless the hold ran out and the mail was taken back meanwhile (then it is another relay's). */
      const record = async (change: Parameters<typeof storage.mail.setState>[1]) => {
        if (!(await storage.mail.setState(row.id, change, row.leaseUntil)))
          log.warn("mail relay's lease ran out; its outcome is dropped", { mailId: row.id, status: change.status });
      };
      const reason = await spent(row);
      if (reason) {
        await record({ status: 'skipped', lastError: reason });
        continue;
      }
      const body = JSON.parse(secrets.decrypt(row.bodyEnc)) as { text: string; html: string };
      const attempts = row.attempts + 1;
      try {
        const { from, replyTo } = senderOf(row, server);
        await (await transportNow()).sendMail({
          from,
          ...(replyTo ? { replyTo } : {}),
          // the envelope too (MAIL FROM): bounces go to the operator's address, never to one a key named
          envelope: { from: server.address, to: row.toAddress },
          to: row.toAddress,
          subject: row.subject,
          text: body.text,
          html: body.html,
        });
        if (closed) return;
        await record({ status: 'sent', attempts, sentAt: currentTime(), lastError: null });
      } catch (error) {
        if (closed) return;
        const message = error instanceof Error ? error.message : String(error);
        // a permanent refusal (5xx) concerns this message only: fail it and go on with the others
        const permanent = ((error as { responseCode?: number }).responseCode ?? 0) >= 500;
        const status = permanent || attempts >= MAX_ATTEMPTS ? 'failed' : 'queued';
        await record({ status, attempts, lastError: message.slice(0, 500) });
        log.warn('mail relay failed', { mailId: row.id, attempts, error: message });
        if (permanent) continue;
        scheduleRetry();
        return; // the SMTP server is likely down: try the rest later
      }
    }
  };

  const flush = () => {
    if (!smtpUrl || closed) return;
    if (running) {
      again = true;
      return;
    }
    running = relayPending()
      .catch((error: unknown) => log.error('mail relay crashed', { error: String(error) }))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          flush();
        }
      });
  };

  const newMail = (mail: OutgoingMail): NewMail => ({
    id: randomAlphanumeric(16),
    kind: mail.kind,
    workspaceId: mail.workspaceId ?? null,
    apiKeyId: mail.apiKeyId ?? null,
    toAddress: mail.to,
    fromAddress: mail.from?.address || null,
    fromName: mail.from?.name || null,
    subject: mail.subject,
    bodyEnc: secrets.encrypt(JSON.stringify({ text: mail.text, html: mail.html })),
    status: smtpUrl ? 'queued' : 'kept',
    loginLinkId: mail.loginLinkId ?? null,
    createdAt: currentTime(),
  });

  return {
    relaying: smtpUrl !== undefined,
    async queue(mail) {
      const row = newMail(mail);
      await storage.mail.insert(row);
      return row.id;
    },
    flush,
    async recover(start) {
      leaseMs = start.config.leases.mailMs;
      if (smtpUrl) await storage.mail.releaseQueued(MAX_ATTEMPTS, heldBeforeAtStart(start, currentTime()));
      flush();
    },
    async takeBackExpired() {
      if (!smtpUrl || closed) return;
      await storage.mail.releaseQueued(MAX_ATTEMPTS, currentTime());
      flush();
    },
    async list({ limit = 100 } = {}) {
      return (await storage.mail.newest(limit)).map((row) => {
        const body = JSON.parse(secrets.decrypt(row.bodyEnc)) as { text: string; html: string };
        return {
          id: row.id,
          kind: row.kind,
          to: row.toAddress,
          ...senderOf(row, server),
          subject: row.subject,
          text: body.text,
          html: body.html,
          workspaceId: row.workspaceId,
          apiKeyId: row.apiKeyId,
          status: row.status,
          attempts: row.attempts,
          lastError: row.lastError,
          createdAt: row.createdAt,
          sentAt: row.sentAt,
        };
      });
    },
    /** Stops relaying; waits for a send in progress at most `graceMs` (the message stays in the outbox). */
    async close(graceMs = 5_000) {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
      if (transport) (await transport).close();
    },
  };
}
