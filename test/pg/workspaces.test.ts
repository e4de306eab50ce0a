// Workspaces, written once, answer on PostgreSQL as on SQLite: the same calls on both engines, every answer compared
// (test/helpers/pg-parity.ts sets both engines up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WorkspacesRepo, workspacesRepo } from '../../server/db/repos/workspaces.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  // the shared setup's workspaces take their creation time from each engine's clock: the same one on both
  await both.insertBoth('UPDATE workspaces SET created_at = ? WHERE id IN (?, ?)', [10, 'w1', 'w2']);
});
afterAll(() => both?.close());

describe('workspaces', () => {
  it('answers every call as on SQLite: lookups, list order, owner, default, settings, verification', async () => {
    const row = (id: string, ownerEmail: string, createdAt: number, isDefault = false) => ({
      id,
      name: `Workspace ${id}`,
      ownerId: `owner-${id}`,
      ownerEmail,
      authTokenEnc: `enc-${id}`,
      authTokenDigest: `digest-${id}`,
      isDefault,
      createdAt,
    });
    const answers = await onBoth<WorkspacesRepo>(both.storage.workspaces, workspacesRepo(both.pg), async (repo) => {
      const w1 = repo.scopeOf({ id: 'w1' });
      return [
        await repo.find(w1),
        await repo.forCredentials('w2'),
        await repo.forCredentials('missing'),
        await repo.findDefault(),
        await repo.ownedBy('a@x.test'),
        await repo.insert(row('wb', 'a@x.test', 100)),
        await repo.insert(row('Wa', 'b@x.test', 100)),
        await repo.insert(row('wc', 'a@x.test', 50, true)),
        // oldest first, ties by id in code point order: w1, w2 (10), wc (50), Wa, wb (100)
        await repo.list(),
        await repo.ownedBy('a@x.test'),
        await repo.ownedBy('nobody@x.test'),
        await repo.findDefault(),
        await repo.updateSettings(repo.scopeOf({ id: 'wb' }), { plan: 'paid', selfServeProduction: true, maxProductionKeys: 3 }),
        await repo.updateSettings(repo.scopeOf({ id: 'missing' }), { plan: 'paid' }),
        await repo.forCredentials('wb'),
        await repo.forCredentials('wc'),
        await repo.markEmailVerified('a@x.test'),
        await repo.markEmailVerified('nobody@x.test'),
        await repo.list(),
        repo.scopeOf({ id: 'wc' }),
      ];
    });
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[2]).toBeUndefined();
    expect(s[3]).toBeUndefined();
    expect((s[8] as Array<{ id: string }>).map((w) => w.id)).toEqual(['w1', 'w2', 'wc', 'Wa', 'wb']);
    expect((s[9] as Array<{ id: string }>).map((w) => w.id)).toEqual(['wc', 'wb']);
    expect(s[10]).toEqual([]);
    expect((s[11] as { id: string }).id).toBe('wc');
    expect(s[14]).toMatchObject({ plan: 'paid', selfServeProduction: true, maxProductionKeys: 3, emailVerified: false });
    expect(s[15]).toMatchObject({ plan: 'free', selfServeProduction: false, maxProductionKeys: 0, isDefault: true });
    expect((s[18] as Array<{ id: string; emailVerified: boolean }>).map((w) => [w.id, w.emailVerified])).toEqual([
      ['w1', false],
      ['w2', false],
      ['wc', true],
      ['Wa', false],
      ['wb', true],
    ]);
    // the defaults came from the schema on both engines
    expect((answers.pg[14] as { ownerName: string; ownerAvatar: string }).ownerName).toBe('');
  });
});
