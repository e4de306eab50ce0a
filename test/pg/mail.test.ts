// The mail outbox, written once, answers on PostgreSQL as on SQLite: the same calls on both engines, every answer
// compared (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailRepo, mailRepo, type NewMail } from '../../server/db/repos/mail.ts';
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
  it('answers every call as on SQLite: the leased queue oldest first, relay states, newest first, login links', async () => {
    const answers = await onBoth<MailRepo>(both.storage.mail, mailRepo(both.pg), async (repo) => [
      await repo.claimQueued(3, 0, 1000),
      await repo.newest(10),
      await repo.insert(mail('m-b', 'queued', 100, { workspaceId: 'w1', loginLinkId: 'L1' })),
      await repo.insert(mail('m-A', 'queued', 100, { apiKeyId: 'k1' })),
      await repo.insert(mail('m-c', 'kept', 50, { workspaceId: 'w1' })),
      await repo.insert(mail('m-d', 'queued', 30, { apiKeyId: 'k2' })),
      // oldest first, each taken once; mails of one time in id order (code point: 'm-A' before 'm-b')
      await repo.claimQueued(3, 10, 1000),
      await repo.claimQueued(3, 10, 1000),
      // an outcome ends the hold
      await repo.setState('m-d', { attempts: 3, lastError: 'refused' }, 1000),
      await repo.claimQueued(3, 20, 1000),
      await repo.claimQueued(3, 20, 1000), // 10
      await repo.claimQueued(4, 20, 1000),
      // the holds of m-A and m-b ran out at 1000: taken over
      await repo.claimQueued(3, 1500, 2500),
      await repo.setState('m-b', { status: 'sent', attempts: 1, sentAt: 120 }, 1000),
      await repo.setState('missing', { status: 'failed' }, null),
      // the only instance's start ends every hold
      await repo.releaseQueued(5, Number.MAX_SAFE_INTEGER), // 15
      await repo.claimQueued(5, 1500, 3000),
      await repo.newest(10),
      await repo.newest(2),
      await repo.loginLink('L1'),
      await repo.loginLink('L2'), // 20
      await repo.loginLink('missing'),
      // a cluster's fence: m-d is held until 3000 now, an outcome recorded under its old hold (1000) is dropped
      await repo.setState('m-d', { status: 'sent', attempts: 4, sentAt: 1600 }, 1000),
      await repo.claimQueued(5, 1600, 2600),
      // a look for expired leases at 2700: m-A's hold (2600) ends, m-d's (3000) stays
      await repo.releaseQueued(5, 2700),
      await repo.claimQueued(5, 2700, 5000), // 25
      await repo.claimQueued(5, 2700, 5000),
      // m-A's first relay, its hold taken over, records nothing; its new holder does
      await repo.setState('m-A', { status: 'failed', attempts: 1, lastError: 'late' }, 2600),
      await repo.setState('m-A', { status: 'sent', attempts: 1, sentAt: 2800 }, 5000),
      await repo.newest(10),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    const id = (row: unknown) => (row as { id: string } | undefined)?.id;
    expect(s[0]).toBeUndefined();
    expect(s[6]).toMatchObject({ id: 'm-d', leaseUntil: 1000 });
    expect(id(s[7])).toBe('m-A');
    expect(id(s[9])).toBe('m-b');
    expect(s[10]).toBeUndefined();
    expect(s[11]).toMatchObject({ id: 'm-d', attempts: 3 });
    expect(s[12]).toMatchObject({ id: 'm-A', leaseUntil: 2500 });
    expect(s[16]).toMatchObject({ id: 'm-d', leaseUntil: 3000 });
    const newest = s[17] as Array<Record<string, unknown>>;
    expect(newest.map((r) => r.id)).toEqual(['m-b', 'm-A', 'm-c', 'm-d']);
    expect(newest[0]).toMatchObject({ status: 'sent', attempts: 1, sentAt: 120, lastError: null, leaseUntil: null });
    expect(newest[1]).toMatchObject({ status: 'queued', leaseUntil: null });
    expect(newest[3]).toMatchObject({ status: 'queued', attempts: 3, lastError: 'refused', sentAt: null, leaseUntil: 3000 });
    expect(s.slice(19, 22)).toEqual([{ usedAt: null, expiresAt: 500 }, { usedAt: 20, expiresAt: 600 }, undefined]);
    // the outcomes: recorded under the hold the relay took, dropped under one taken over
    expect([s[8], s[13], s[14]]).toEqual([true, true, false]);
    expect(s[22]).toBe(false);
    expect(s[23]).toMatchObject({ id: 'm-A', leaseUntil: 2600 });
    expect(s[25]).toMatchObject({ id: 'm-A', leaseUntil: 5000 });
    expect(s[26]).toBeUndefined();
    expect([s[27], s[28]]).toEqual([false, true]);
    const after = s[29] as Array<Record<string, unknown>>;
    expect(after.find((r) => r.id === 'm-A')).toMatchObject({ status: 'sent', attempts: 1, sentAt: 2800, lastError: null, leaseUntil: null });
    expect(after.find((r) => r.id === 'm-d')).toMatchObject({ status: 'queued', attempts: 3, sentAt: null, leaseUntil: 3000 });
  });

  it('gives each mail to one relay when instances take at the same moment (PostgreSQL)', async () => {
    const repo = mailRepo(both.pg);
    for (let i = 0; i < 30; i++) await repo.insert(mail(`race${String(i).padStart(2, '0')}`, 'queued', 5_000 + i, { apiKeyId: 'k1' }));
    const taken = await Promise.all(Array.from({ length: 40 }, () => repo.claimQueued(5, 10_000, 20_000)));
    const ids = taken.flatMap((t) => (t?.id.startsWith('race') ? [t.id] : []));
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});
