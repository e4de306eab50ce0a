// How many people one API key may e-mail through Hearth's relay (issue 42): a call names at most
// `mailRecipientsPerCall` mailed recipients, and a key mails at most `rateLimits.mailRecipientsPerKey` in a window
// (counted across a cluster like every rate limit). Past either, the whole call is refused before anything of it is
// written: a notification half-mailed cannot be told apart from one mailed to all, and the caller can retry it.
import type { Config, RateLimit } from '../config.ts';
import { resourceExhausted } from '../errors.ts';

/**
 * What the recipient limits read: the limiter (the app's, http/rate-limit.ts, which mail does not import: it sits
 * above it) and the two limits of the config.
 */
export interface MailLimitDeps {
  limiter: { hit(key: string, limit: RateLimit, cost?: number): boolean };
  config: Pick<Config, 'mailRecipientsPerCall' | 'rateLimits'>;
}

/**
 * Admits `count` recipients of one call's mail for the key, or throws RESOURCE_EXHAUSTED. The recipients of a refused
 * call that was within the per-call limit still count in the key's window (as every refused hit of a rate limit does).
 */
export function admitMailRecipients(deps: MailLimitDeps, apiKeyId: string, count: number): void {
  if (count === 0) return;
  const perCall = deps.config.mailRecipientsPerCall;
  if (count > perCall) {
    throw resourceExhausted(`This call would e-mail ${count} recipients; an API key may e-mail at most ${perCall} per call. Nothing was sent.`);
  }
  const limit = deps.config.rateLimits.mailRecipientsPerKey;
  if (!deps.limiter.hit(`mail-recipients:${apiKeyId}`, limit, count)) {
    const seconds = Math.ceil(limit.windowMs / 1000);
    throw resourceExhausted(`E-mail limit reached: an API key may e-mail at most ${limit.max} recipients per ${seconds} s. Nothing was sent; try again later.`);
  }
}
