// The mail outbox ported to PostgreSQL answers as on SQLite: the same calls on both engines, every answer compared
// (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailRepo, mailRepoPg } from '../../server/db/pg/repos/mail.ts';
import type { NewMail } from '../../server/db/repos/mail.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  const link = 'INSERT INTO login_links (id, workspace_id, email, token_digest, continue_url, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
  await both.insertBoth(link, ['L1', 'w1', 'o@x.test', 'digest-L1', 'https://app.test/', 1, 500, null]);
  await both.insertBoth(link, ['L2', 'w1', 'o@x.test', 'digest-L2', 'https://app.test/', 1, 600, 20]);
});
afterAll(() => both?.close());

const mail = (id: string, status: NewMail['status'], createdAt: number, owner: { workspaceId?: string; apiKeyId?: string; loginLinkId?: string }): NewMail => ({
  id,
  workspaceId: owner.workspaceId ?? null,
  apiKeyId: owner.apiKeyId ?? null,
  kind: owner.loginLinkId ? 'login-link' : 'notification',
  toAddress: 'to@x.test',
  fromAddress: owner.apiKeyId ? 'from@x.test' : null,
  fromName: owner.apiKeyId ? 'Sender' : null,
  subject: `Mail ${id}`,
  bodyEnc: `enc-${id}`,
  status,
  loginLinkId: owner.loginLinkId ?? null,
  createdAt,
});

describe('mail', () => {
  it('answers every call as on SQLite: the queue oldest first, relay states, newest first, login links', async () => {
    const answers = await onBoth<MailRepo>(both.storage.mail, mailRepoPg(both.engine), async (repo) => [
      await repo.queued(3, 10),
      await repo.newest(10),
      await repo.insert(mail('m-b', 'queued', 100, { workspaceId: 'w1', loginLinkId: 'L1' })),
      await repo.insert(mail('m-A', 'queued', 100, { apiKeyId: 'k1' })),
      await repo.insert(mail('m-c', 'kept', 50, { workspaceId: 'w1' })),
      await repo.insert(mail('m-d', 'queued', 30, { apiKeyId: 'k2' })),
      // oldest first; mails of one time in id order (code point: 'm-A' before 'm-b')
      await repo.queued(3, 10),
      await repo.queued(3, 2),
      await repo.setState('m-d', { attempts: 3, lastError: 'refused' }),
      await repo.queued(3, 10),
      await repo.queued(4, 10),
      await repo.setState('m-b', { status: 'sent', attempts: 1, sentAt: 120 }),
      await repo.setState('missing', { status: 'failed' }),
      await repo.queued(5, 10),
      await repo.newest(10),
      await repo.newest(2),
      await repo.loginLink('L1'),
      await repo.loginLink('L2'),
      await repo.loginLink('missing'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    const ids = (rows: unknown) => (rows as Array<{ id: string }>).map((r) => r.id);
    expect(s[0]).toEqual([]);
    expect(ids(s[6])).toEqual(['m-d', 'm-A', 'm-b']);
    expect(ids(s[7])).toEqual(['m-d', 'm-A']);
    expect(ids(s[9])).toEqual(['m-A', 'm-b']);
    expect(ids(s[10])).toEqual(['m-d', 'm-A', 'm-b']);
    expect(ids(s[13])).toEqual(['m-d', 'm-A']);
    expect(ids(s[14])).toEqual(['m-b', 'm-A', 'm-c', 'm-d']);
    expect((s[14] as Array<Record<string, unknown>>)[0]).toMatchObject({ status: 'sent', attempts: 1, sentAt: 120, lastError: null });
    expect((s[14] as Array<Record<string, unknown>>)[3]).toMatchObject({ status: 'queued', attempts: 3, lastError: 'refused', sentAt: null });
    expect(s.slice(16)).toEqual([{ usedAt: null, expiresAt: 500 }, { usedAt: 20, expiresAt: 600 }, undefined]);
  });
});
