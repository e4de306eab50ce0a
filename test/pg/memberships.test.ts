// The memberships repository answers alike on PostgreSQL and on SQLite (see organizations.test.ts): the same calls on both
// engines, every answer compared, and the answers checked for what they should be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MembershipKey, type MembershipLevel, type MembershipRow, type MembershipsRepo, membershipsRepo } from '../../server/db/repos/memberships.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  await both.insertOrganizations([
    ['k1', 'o1'],
    ['k1', 'o2'],
    ['k2', 'o1'],
  ] as const);
});
afterAll(() => both?.close());

const key = (organizationId: string, level: MembershipLevel, resourceId: string, userId: string): MembershipKey => ({
  organizationId,
  level,
  resourceId,
  userId,
});
const T = 1_700_000_000_000;

describe('memberships', () => {
  it('answers every call as on SQLite: find, upsert, grant (given, stored or editor role, expiry cleared, in order), removals, tenant isolation', async () => {
    const { k1, k2 } = both;
    const d1 = { organizationId: 'o1', level: 'document' as const, resourceId: 'd1' };
    const many = Array.from({ length: 1200 }, (_, i) => ({ userId: `user-${i}`, accessRole: i % 2 ? ('viewer' as const) : null, now: T + 9 }));
    const answers = await onBoth<MembershipsRepo>(both.storage.memberships, membershipsRepo(both.pg), async (repo) => [
      await repo.find(k1, key('o1', 'organization', 'o1', 'alice')),
      await repo.upsert(k1, { ...key('o1', 'organization', 'o1', 'alice'), accessRole: 'viewer', expiresAt: T + 1_000_000 }, T + 1),
      await repo.upsert(k1, { ...key('o1', 'folder', 'f1', 'alice'), accessRole: 'editor', expiresAt: null }, T + 1),
      await repo.upsert(k1, { ...key('o1', 'document', 'd1', 'alice'), accessRole: 'viewer', expiresAt: T + 2_000_000 }, T + 1),
      await repo.upsert(k1, { ...key('o1', 'folder', 'f2', 'bob'), accessRole: 'editor', expiresAt: null }, T + 1),
      await repo.upsert(k1, { ...key('o2', 'organization', 'o2', 'alice'), accessRole: 'editor', expiresAt: null }, T + 1),
      await repo.upsert(k2, { ...key('o1', 'organization', 'o1', 'alice'), accessRole: 'editor', expiresAt: null }, T + 1),
      await repo.find(k1, key('o1', 'organization', 'o1', 'alice')),
      await repo.upsert(k1, { ...key('o1', 'organization', 'o1', 'alice'), accessRole: 'editor', expiresAt: null }, T + 2),
      await repo.find(k1, key('o1', 'organization', 'o1', 'alice')),
      // alice keeps her stored role (expiry cleared), carol gets editor then viewer, alice ends as editor
      await repo.grant(k1, d1, [
        { userId: 'alice', accessRole: null, now: T + 3 },
        { userId: 'carol', accessRole: null, now: T + 3 },
        { userId: 'dave', accessRole: 'viewer', now: T + 3 },
        { userId: 'carol', accessRole: 'viewer', now: T + 4 },
        { userId: 'erin', accessRole: null, now: T + 4 },
      ]),
      await repo.find(k1, key('o1', 'document', 'd1', 'alice')),
      await repo.find(k1, key('o1', 'document', 'd1', 'carol')),
      await repo.find(k1, key('o1', 'document', 'd1', 'dave')),
      await repo.find(k1, key('o1', 'document', 'd1', 'erin')),
      await repo.grant(k1, d1, [
        { userId: 'alice', accessRole: 'editor', now: T + 5 },
        { userId: 'carol', accessRole: null, now: T + 5 },
      ]),
      await repo.find(k1, key('o1', 'document', 'd1', 'alice')),
      await repo.find(k1, key('o1', 'document', 'd1', 'carol')),
      await repo.grant(k1, d1, []),
      await repo.grant(k1, { organizationId: 'o1', level: 'folder', resourceId: 'big' }, many),
      await repo.find(k1, key('o1', 'folder', 'big', 'user-1199')),
      await repo.find(k1, key('o1', 'folder', 'big', 'user-1198')),
      await repo.remove(k1, key('o1', 'folder', 'f2', 'bob')),
      await repo.remove(k1, key('o1', 'folder', 'f2', 'bob')),
      await repo.remove(k2, key('o1', 'folder', 'f1', 'alice')),
      await repo.removeUser(k1, 'o1', 'alice'),
      await repo.removeUser(k1, 'o1', 'alice'),
      await repo.find(k1, key('o2', 'organization', 'o2', 'alice')),
      await repo.find(k2, key('o1', 'organization', 'o1', 'alice')),
      await repo.upsert(k1, { ...key('o1', 'folder', 'd1', 'zed'), accessRole: 'viewer', expiresAt: null }, T + 6),
      // more ids than one slice; the folder level's d1 is not the document level's
      await repo.removeAt(k1, 'o1', 'document', [...Array.from({ length: 520 }, (_, i) => `none-${i}`), 'd1']),
      await repo.removeAt(k1, 'o1', 'folder', []),
      await repo.removeAt(k2, 'o1', 'folder', ['d1']),
      await repo.find(k1, key('o1', 'document', 'd1', 'carol')),
      await repo.find(k1, key('o1', 'document', 'd1', 'erin')),
      await repo.find(k1, key('o1', 'folder', 'd1', 'zed')),
      await repo.removeUser(k1, 'o1', 'user-1199'),
      // users/update's role change of a membership it read: one gone since (a delete's commit between the read and the
      // write) is ConcurrentChange, never made again; another key's is not there either
      [
        await repo.changeRole(k1, key('o1', 'folder', 'd1', 'zed'), 'editor', T + 7),
        await repo.find(k1, key('o1', 'folder', 'd1', 'zed')),
        await repo.changeRole(k1, key('o1', 'folder', 'd1', 'gone'), 'editor', T + 7).then(
          () => 'changed',
          (error: Error) => error.name,
        ),
        await repo.changeRole(k2, key('o1', 'folder', 'd1', 'zed'), 'viewer', T + 7).then(
          () => 'changed',
          (error: Error) => error.name,
        ),
        await repo.find(k1, key('o1', 'folder', 'gone', 'gone')),
      ],
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite as Array<MembershipRow | undefined>;
    expect(s[0]).toBeUndefined();
    expect(s[7]).toEqual({
      ...key('o1', 'organization', 'o1', 'alice'),
      apiKeyId: 'k1',
      accessRole: 'viewer',
      expiresAt: T + 1_000_000,
      createdAt: T + 1,
      updatedAt: T + 1,
    });
    expect(s[9]).toMatchObject({ accessRole: 'editor', expiresAt: null, createdAt: T + 1, updatedAt: T + 2 });
    expect(s[11]).toMatchObject({ accessRole: 'viewer', expiresAt: null, createdAt: T + 1, updatedAt: T + 3 });
    expect(s[12]).toMatchObject({ accessRole: 'viewer', createdAt: T + 3, updatedAt: T + 4 });
    expect(s[13]).toMatchObject({ accessRole: 'viewer' });
    expect(s[14]).toMatchObject({ accessRole: 'editor', createdAt: T + 4 });
    expect(s[16]).toMatchObject({ accessRole: 'editor', updatedAt: T + 5 });
    expect(s[17]).toMatchObject({ accessRole: 'viewer', updatedAt: T + 5 });
    expect(s[20]).toMatchObject({ accessRole: 'viewer' });
    expect(s[21]).toMatchObject({ accessRole: 'editor' });
    expect(answers.sqlite.slice(22, 27)).toEqual([true, false, false, 3, 0]);
    expect(s[27]).toMatchObject({ apiKeyId: 'k1', organizationId: 'o2' });
    expect(s[28]).toMatchObject({ apiKeyId: 'k2', organizationId: 'o1' });
    expect(s[33]).toBeUndefined();
    expect(s[34]).toBeUndefined();
    expect(s[35]).toMatchObject({ userId: 'zed', level: 'folder' });
    expect(answers.sqlite[36]).toBe(1);
    expect(answers.sqlite[37]).toEqual([
      undefined,
      expect.objectContaining({ userId: 'zed', accessRole: 'editor', expiresAt: null, createdAt: T + 6, updatedAt: T + 7 }),
      'ConcurrentChange',
      'ConcurrentChange',
      undefined,
    ]);
  });
});
