// The PostgreSQL port of the reactions repository answers as the SQLite one (see organizations.test.ts), for every
// method it has: `list` is left out of the port (server/db/pg/repos/reactions.ts says why).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationsRepoPg } from '../../server/db/pg/repos/organizations.ts';
import { type ReactionsRepoPg, reactionsRepoPg } from '../../server/db/pg/repos/reactions.ts';
import type { ReactionRow } from '../../server/db/repos/reactions.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

const T = 1_700_000_000_000;

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
  const org = (id: string) => ({ id, name: id, disabled: false, metadata: {}, createdAt: T, updatedAt: T });
  for (const repo of [both.storage.organizations, organizationsRepoPg(both.engine)]) {
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
    const answers = await onBoth<ReactionsRepoPg>(both.storage.reactions, reactionsRepoPg(both.engine), async (repo) => [
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
    const after = await onBoth<ReactionsRepoPg>(both.storage.reactions, reactionsRepoPg(both.engine), async (repo) => [
      await repo.find(k1, 'o1', 'r4'),
      await repo.find(k1, 'o1', 'r5'),
      await repo.lookup(k1, key('n1', 2, 'u1', 'heart')),
    ]);
    expect(after.pg).toEqual(after.sqlite);
    expect(after.sqlite[0]).toBeUndefined();
    expect(after.sqlite[1]).toMatchObject({ id: 'r5' });
    expect(after.sqlite[2]).toEqual({ commentExists: false, existing: undefined });
  });
});
