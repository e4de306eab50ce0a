import { currentTime } from '../clock.ts';
import { randomBytes } from 'node:crypto';
import type { Config, RateLimit } from '../config.ts';
import type { Storage } from '../db/repos/index.ts';
import type { Logger } from '../log.ts';
import type { Mailer } from '../mail/mailer.ts';
import { invalid, notFound, resourceExhausted } from '../errors.ts';
import type { Secrets } from '../security/secrets.ts';
import { randomAlphanumeric } from '../security/secrets.ts';
import { isDisposableEmail } from './resources.ts';

export const LOGIN_LINK_PATH = '/auth/email-link';
const LINK_LIFETIME_MS = 60 * 60 * 1000;
const RATE_LIMITED = 'Rate limit exceeded for this endpoint. Try again later.';

/** What the allowed hosts come from: the configured extras, and this server's URLs. */
type HostsDeps = { config: Pick<Config, 'loginLinkAllowedHosts'>; baseUrl: string; publicUrl: string };
/** What sending a link uses besides: the rate limits and their counters, storage, digests and the mailer. */
type SendDeps = HostsDeps & {
  config: Pick<Config, 'rateLimits'>;
  limiter: { hit(key: string, limit: RateLimit): boolean };
  storage: Storage;
  secrets: Secrets;
  mail: Pick<Mailer, 'queue' | 'flush'>;
  log: Logger;
};

/**
 * Hosts a continueUrl may point at: the console (this server's own host, as it listens and as `publicUrl` names
 * it), localhost, and configured extras.
 */
export function allowedContinueHosts(app: HostsDeps): Set<string> {
  const hosts = new Set(['localhost', '127.0.0.1', '[::1]', ...app.config.loginLinkAllowedHosts.map((h) => h.toLowerCase())]);
  try {
    hosts.add(new URL(app.baseUrl).hostname.toLowerCase());
    hosts.add(new URL(app.publicUrl).hostname.toLowerCase());
  } catch {
    // baseUrl is set once the server listens; before that only the fixed hosts apply
  }
  return hosts;
}

/**
 * /v2/workspace/email/send-login-link. The link is a one-time token (its digest stored, valid one hour) that
 * verifies the owner's e-mail and continues to `continueUrl`. The answer is the same whether or not the address
 * owns a workspace, so the operation cannot be used to discover accounts; mail goes only to real owners. Expired
 * links are deleted on the way.
 */
export async function sendLoginLink(app: SendDeps, input: { email: string; continueUrl: string }, clientIp: string) {
  let continueUrl: URL;
  try {
    continueUrl = new URL(input.continueUrl);
  } catch {
    throw invalid('Invalid url for continueUrl');
  }
  if (continueUrl.protocol !== 'http:' && continueUrl.protocol !== 'https:') throw invalid('Invalid url for continueUrl');
  const hostname = continueUrl.hostname.toLowerCase();
  const hosts = allowedContinueHosts(app);
  if (!hosts.has(hostname) && !hostname.endsWith('.localhost')) throw invalid('The continueUrl domain is not allowed.');
  const email = input.email.toLowerCase();
  if (isDisposableEmail(email)) throw invalid('This email domain is not supported.');

  const limits = app.config.rateLimits;
  if (!app.limiter.hit(`login-link-ip:${clientIp}`, limits.loginLinkPerIp)) throw resourceExhausted(RATE_LIMITED);
  if (!app.limiter.hit(`login-link-email:${email}`, limits.loginLinkPerEmail)) throw resourceExhausted(RATE_LIMITED);

  const { storage } = app;
  const queued = await storage.transaction(async () => {
    // links past their hour can never be opened again: each request clears them away (a few rows at most)
    await storage.loginLinks.deleteExpired(currentTime());
    const owner = (await storage.workspaces.ownedBy(email))[0];
    if (!owner) return false;
    const token = randomBytes(32).toString('base64url');
    const now = currentTime();
    const linkId = randomAlphanumeric(16);
    await storage.loginLinks.insert({
      id: linkId,
      workspaceId: owner.id,
      email,
      tokenDigest: app.secrets.digest(token),
      continueUrl: continueUrl.toString(),
      createdAt: now,
      expiresAt: now + LINK_LIFETIME_MS,
      usedAt: null,
    });
    const link = `${app.publicUrl}${LOGIN_LINK_PATH}?token=${token}`;
    await app.mail.queue({
      kind: 'login-link',
      workspaceId: owner.id,
      loginLinkId: linkId,
      to: email,
      subject: 'Your Hearth sign-in link',
      text: `Open this link to sign in to Hearth. It works once and expires in one hour.\n\n${link}\n\nIf you did not ask for it, ignore this e-mail.`,
      html: `<p>Open this link to sign in to Hearth. It works once and expires in one hour.</p><p><a href="${link}">Sign in to Hearth</a></p><p>If you did not ask for it, ignore this e-mail.</p>`,
    });
    return true;
  });
  if (queued) app.mail.flush();
  else app.log.debug('login link requested for an address that owns no workspace');
}

type LinkDeps = { storage: Storage; secrets: Secrets };

/** The unused, unexpired login link of a token, or null. */
async function usableLink(deps: LinkDeps, token: string) {
  const link = await deps.storage.loginLinks.unused(deps.secrets.digest(token));
  return link && link.expiresAt >= currentTime() ? link : null;
}

/** Whose login link a token is, while it can still be used; changes nothing (GET of the link's page). */
export async function openLoginLink(deps: LinkDeps, token: string): Promise<{ email: string } | null> {
  const link = await usableLink(deps, token);
  return link ? { email: link.email } : null;
}

/** Uses a login link up: marks it used and the owner's e-mail verified; returns where to continue, or null. */
export function consumeLoginLink(deps: LinkDeps, token: string): Promise<string | null> {
  return deps.storage.transaction(async () => {
    const link = await usableLink(deps, token);
    if (!link) return null;
    await deps.storage.loginLinks.markUsed(link.id, currentTime());
    await deps.storage.workspaces.markEmailVerified(link.email);
    return link.continueUrl;
  });
}

/** /v2/workspace/email/status: true once the owner has opened a login link. */
export async function emailStatus(deps: { storage: Storage }, ownerEmail: string): Promise<boolean> {
  const rows = await deps.storage.workspaces.ownedBy(ownerEmail.toLowerCase());
  if (rows.length === 0) throw notFound('User not found');
  return rows.some((r) => r.emailVerified);
}
