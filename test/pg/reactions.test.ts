// The reactions repository, written once, answers on PostgreSQL as on SQLite (see organizations.test.ts), for every
// method; `list` in creation order, reactions of one millisecond in the order they were inserted (SQLite's rowid,
// PostgreSQL's seq), also after a row was rewritten in place or deleted and inserted again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationsRepo } from '../../server/db/repos/organizations.ts';
import { type ReactionRow, type ReactionsRepo, reactionsRepo } from '../../server/db/repos/reactions.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

const T = 1_700_000_000_000;

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  const org = (id: string) => ({ id, name: id, disabled: false, metadata: {}, createdAt: T, updatedAt: T });
  for (const repo of [both.storage.organizations, organizationsRepo(both.pg)]) {
    await repo.insert(both.k1, org('o1'));
    await repo.insert(both.k2, org('o1'));
  }
  for (const key of ['k1', 'k2']) {
    for (const annotation of ['n1', 'n2']) {
      await both.insertBoth(
        'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, visibility, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'o1', annotation, 'd1', 'open', 'public', 'u1', T, T],
      );
      for (const comment of [1, 2]) {
        await both.insertBoth(
          'INSERT INTO comments (api_key_id, organization_id, annotation_id, id, from_user, from_user_id, mentioned_user_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [key, 'o1', annotation, comment, '{"userId":"u1"}', 'u1', '[]', T, T],
        );
      }
    }
  }
});
afterAll(() => both?.close());

const reaction = (id: string, annotationId: string, commentId: number, fromUserId: string, icon: string, createdAt: number): Omit<ReactionRow, 'apiKeyId'> => ({
  organizationId: 'o1',
  id,
  annotationId,
  commentId,
  icon,
  fromUser: { userId: fromUserId, name: `User ${fromUserId}`, email: `${fromUserId}@x.test` },
  fromUserId,
  createdAt,
});

describe('reactions', () => {
  it('answers every ported call as on SQLite: lookup, insert, find, delete, tenant isolation, cascade from the comment', async () => {
    const { k1, k2 } = both;
    const key = (annotationId: string, commentId: number, fromUserId: string, icon: string) => ({
      organizationId: 'o1',
      annotationId,
      commentId,
      fromUserId,
      icon,
    });
    const answers = await onBoth<ReactionsRepo>(both.storage.reactions, reactionsRepo(both.pg), async (repo) => [
      await repo.lookup(k1, key('n1', 1, 'u1', 'heart')),
      await repo.lookup(k1, key('n1', 3, 'u1', 'heart')),
      await repo.lookup(k1, key('nope', 1, 'u1', 'heart')),
      await repo.insert(k1, reaction('r1', 'n1', 1, 'u1', 'heart', T + 1)),
      await repo.insert(k1, reaction('r2', 'n1', 1, 'u2', 'heart', T + 2)),
      await repo.insert(k1, reaction('r3', 'n1', 1, 'u1', 'thumbs', T + 3)),
      await repo.insert(k1, reaction('r4', 'n1', 2, 'u1', 'heart', T + 4)),
      await repo.insert(k1, reaction('r5', 'n2', 1, 'u1', 'heart', T + 5)),
      await repo.insert(k2, reaction('r1', 'n1', 1, 'u9', 'heart', T + 6)),
      await repo.lookup(k1, key('n1', 1, 'u1', 'heart')),
      await repo.lookup(k1, key('n1', 1, 'u1', 'thumbs')),
      await repo.lookup(k1, key('n1', 1, 'u3', 'heart')),
      await repo.lookup(k1, key('n1', 2, 'u1', 'heart')),
      await repo.lookup(k1, key('n2', 2, 'u1', 'heart')),
      await repo.lookup(k2, key('n1', 1, 'u1', 'heart')),
      await repo.lookup(k2, key('n1', 1, 'u9', 'heart')),
      await repo.find(k1, 'o1', 'r1'),
      await repo.find(k1, 'o1', 'missing'),
      await repo.find(k1, 'o2', 'r1'),
      await repo.find(k2, 'o1', 'r1'),
      await repo.delete(k1, 'o1', 'r1'),
      await repo.delete(k1, 'o1', 'r1'),
      await repo.find(k1, 'o1', 'r1'),
      await repo.find(k2, 'o1', 'r1'),
      await repo.lookup(k1, key('n1', 1, 'u1', 'heart')),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toEqual({ commentExists: true, existing: undefined });
    expect(s[1]).toEqual({ commentExists: false, existing: undefined });
    expect(s[2]).toEqual({ commentExists: false, existing: undefined });
    expect((s[9] as { existing: ReactionRow }).existing).toMatchObject({ id: 'r1', icon: 'heart', fromUserId: 'u1', createdAt: T + 1 });
    expect(JSON.stringify((answers.pg[9] as { existing: ReactionRow }).existing.fromUser)).toBe('{"userId":"u1","name":"User u1","email":"u1@x.test"}');
    expect((s[10] as { existing: ReactionRow }).existing.id).toBe('r3');
    expect(s[11]).toEqual({ commentExists: true, existing: undefined });
    expect((s[12] as { existing: ReactionRow }).existing.id).toBe('r4');
    expect(s[13]).toEqual({ commentExists: true, existing: undefined });
    expect(s[14]).toEqual({ commentExists: true, existing: undefined });
    expect((s[15] as { existing: ReactionRow }).existing).toMatchObject({ id: 'r1', apiKeyId: 'k2' });
    expect(s[16]).toMatchObject({ id: 'r1', apiKeyId: 'k1' });
    expect(s.slice(17, 19)).toEqual([undefined, undefined]);
    expect(s[19]).toMatchObject({ id: 'r1', fromUserId: 'u9' });
    expect(s.slice(20, 22)).toEqual([true, false]);
    expect(s[22]).toBeUndefined();
    expect(s[23]).toMatchObject({ id: 'r1', apiKeyId: 'k2' });
    expect(s[24]).toEqual({ commentExists: true, existing: undefined });

    // a comment's deletion takes its reactions on both engines (the foreign key cascades)
    await both.insertBoth('DELETE FROM comments WHERE api_key_id = ? AND organization_id = ? AND annotation_id = ? AND id = ?', ['k1', 'o1', 'n1', 2]);
    const after = await onBoth<ReactionsRepo>(both.storage.reactions, reactionsRepo(both.pg), async (repo) => [
      await repo.find(k1, 'o1', 'r4'),
      await repo.find(k1, 'o1', 'r5'),
      await repo.lookup(k1, key('n1', 2, 'u1', 'heart')),
    ]);
    expect(after.pg).toEqual(after.sqlite);
    expect(after.sqlite[0]).toBeUndefined();
    expect(after.sqlite[1]).toMatchObject({ id: 'r5' });
    expect(after.sqlite[2]).toEqual({ commentExists: false, existing: undefined });
  });

  it('lists a thread’s reactions in creation order as on SQLite, those of one millisecond in the order they were inserted', async () => {
    const { k1, k2 } = both;
    const ids = (rows: unknown) => (rows as ReactionRow[]).map((r) => r.id);
    // one millisecond (T + 100), inserted in an order that no column holds (not by id, user, icon or comment),
    // around it one earlier (inserted after them) and one later
    const answers = await onBoth<ReactionsRepo>(both.storage.reactions, reactionsRepo(both.pg), async (repo) => {
      for (const [id, commentId, fromUserId, icon, at] of [
        ['s-x3', 1, 'u2', 'smile', T + 100],
        ['s-a7', 2, 'u9', 'heart', T + 100],
        ['s-m1', 1, 'u1', 'thumbs', T + 100],
        ['s-b2', 2, 'u5', 'clap', T + 100],
        ['s-z0', 1, 'u3', 'heart', T + 99],
        ['s-c4', 1, 'u4', 'heart', T + 101],
      ] as const)
        await repo.insert(k1, reaction(id, 'n2', commentId, fromUserId, icon, at));
      await repo.insert(k2, reaction('s-x3', 'n2', 1, 'u2', 'smile', T + 100));
      return [await repo.list(k1, 'o1', 'n2'), await repo.list(k1, 'o1', 'n2', 1), await repo.list(k1, 'o1', 'n2', 2), await repo.list(k2, 'o1', 'n2')];
    });
    expect(answers.pg).toEqual(answers.sqlite);
    // r5 (T + 5) is the first test's
    expect(answers.sqlite.map(ids)).toEqual([
      ['r5', 's-z0', 's-x3', 's-a7', 's-m1', 's-b2', 's-c4'],
      ['r5', 's-z0', 's-x3', 's-m1', 's-c4'],
      ['s-a7', 's-b2'],
      ['s-x3'],
    ]);
    expect(answers.sqlite[3]).toMatchObject([{ apiKeyId: 'k2', fromUserId: 'u2' }]);

    // a row rewritten in place keeps its place (PostgreSQL writes a new row version elsewhere in the table); one
    // deleted and inserted again comes last of its millisecond
    await both.insertBoth("UPDATE reactions SET icon = icon || '' WHERE api_key_id = ? AND id = ?", ['k1', 's-x3']);
    const moved = await onBoth<ReactionsRepo>(both.storage.reactions, reactionsRepo(both.pg), async (repo) => {
      const found = await repo.find(k1, 'o1', 's-a7');
      if (!found) throw new Error('s-a7 is missing');
      const { apiKeyId: _key, ...row } = found;
      await repo.delete(k1, 'o1', 's-a7');
      await repo.insert(k1, row);
      return [
        await repo.list(k1, 'o1', 'n2'),
        await repo.list(k1, 'o1', 'n2', 2),
        await repo.list(k1, 'o2', 'n2'),
        await repo.list(k1, 'o1', 'nope'),
        await repo.list(k1, 'o1', 'n2', 7),
      ];
    });
    expect(moved.pg).toEqual(moved.sqlite);
    expect(moved.sqlite.map(ids)).toEqual([['r5', 's-z0', 's-x3', 's-m1', 's-b2', 's-a7', 's-c4'], ['s-b2', 's-a7'], [], [], []]);
  });
});
