// Login links, written once, answer on PostgreSQL as on SQLite: the same calls on both engines, every answer compared
// (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoginLinksRepo, loginLinksRepo } from '../../server/db/repos/login-links.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const link = (id: string, workspaceId: string, tokenDigest: string, expiresAt: number) => ({
  id,
  workspaceId,
  email: 'o@x.test',
  tokenDigest,
  continueUrl: `https://app.test/${id}`,
  createdAt: 1,
  expiresAt,
  usedAt: null,
});

describe('login links', () => {
  it('answers every call as on SQLite: unused by digest, used, expired ones cleared', async () => {
    const answers = await onBoth<LoginLinksRepo>(both.storage.loginLinks, loginLinksRepo(both.pg), async (repo) => [
      await repo.unused('d1'),
      await repo.insert(link('l1', 'w1', 'd1', 100)),
      await repo.insert(link('l2', 'w2', 'd2', 200)),
      await repo.insert(link('l3', 'w1', 'd3', 50)),
      await repo.unused('d1'),
      await repo.unused('d3'),
      await repo.unused('nope'),
      await repo.markUsed('l1', 60),
      await repo.markUsed('missing', 60),
      await repo.unused('d1'),
      await repo.unused('d2'),
      // strictly before: l3 goes, l1 (expiring at 100) stays
      await repo.deleteExpired(100),
      await repo.unused('d3'),
      await repo.unused('d2'),
      // l1 goes now: its digest (unique) can be used again
      await repo.deleteExpired(101),
      await repo.insert(link('l4', 'w1', 'd1', 300)),
      await repo.unused('d1'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[4]).toEqual(link('l1', 'w1', 'd1', 100));
    expect(s[6]).toBeUndefined();
    expect(s[9]).toBeUndefined();
    expect((s[10] as { id: string }).id).toBe('l2');
    expect(s[12]).toBeUndefined();
    expect((s[13] as { id: string }).id).toBe('l2');
    expect((s[16] as { id: string }).id).toBe('l4');
  });
});
