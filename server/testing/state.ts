/**
 * Testing mode's captured outbound traffic. Webhook attempts are posted back by the delivery worker as they go out
 * (webhooks/protocol.ts `sent`) and kept here, in memory, newest last; mail needs no copy: every message Hearth
 * writes is already kept in the database's mail outbox (mail/mailer.ts, relayed over SMTP when SMTP_URL is set),
 * so the testing outbox lists that, less what a clear hid. Bounded: a suite that never clears keeps the last
 * MAX_WEBHOOKS attempts.
 */
import type { Mailer, StoredMail } from '../mail/mailer.ts';
import type { Fixtures } from './fixtures-schema.ts';
import type { SentWebhook } from '../webhooks/protocol.ts';

const MAX_WEBHOOKS = 10_000;
/** Mail listed at most (newest first in the database; answered oldest first). */
const MAX_MAIL = 1_000;

export interface TestingState {
  /** The fixtures Hearth was started with (exec --fixtures, startHearth({ fixtures }), serve --fixtures): a reset loads them again. */
  fixtures?: Fixtures;
  /** Records an attempt the delivery worker made. */
  recordWebhook(sent: SentWebhook): void;
  /** Webhook attempts since the last clear, oldest first (of one API key when given). */
  webhooks(apiKeyId?: string): SentWebhook[];
  /** Mail written since the last clear, oldest first (of one API key or workspace when given). */
  mail(mailer: Pick<Mailer, 'list'>, filter?: { apiKeyId?: string; workspaceId?: string }): Promise<StoredMail[]>;
  /** Forgets what was captured so far (of one API key, or everything). */
  clear(mailer: Pick<Mailer, 'list'>, apiKeyId?: string): Promise<void>;
}

export function createTestingState(): TestingState {
  let webhooks: SentWebhook[] = [];
  const hiddenMail = new Set<string>();
  return {
    recordWebhook(sent) {
      webhooks.push(sent);
      if (webhooks.length > MAX_WEBHOOKS) webhooks = webhooks.slice(-MAX_WEBHOOKS);
    },
    webhooks: (apiKeyId) => webhooks.filter((w) => apiKeyId === undefined || w.apiKeyId === apiKeyId),
    async mail(mailer, filter = {}) {
      const rows = await mailer.list({ limit: MAX_MAIL });
      return rows
        .filter(
          (m) =>
            !hiddenMail.has(m.id) &&
            (filter.apiKeyId === undefined || m.apiKeyId === filter.apiKeyId) &&
            (filter.workspaceId === undefined || m.workspaceId === filter.workspaceId),
        )
        .reverse();
    },
    async clear(mailer, apiKeyId) {
      webhooks = apiKeyId === undefined ? [] : webhooks.filter((w) => w.apiKeyId !== apiKeyId);
      for (const m of await mailer.list({ limit: MAX_MAIL })) if (apiKeyId === undefined || m.apiKeyId === apiKeyId) hiddenMail.add(m.id);
    },
  };
}
