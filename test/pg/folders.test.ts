// The folders repository on PostgreSQL answers as on SQLite (see organizations.test.ts): the same calls on both
// engines, every answer compared, and the answers checked for what they should be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FolderRow, type FoldersRepo, foldersRepo } from '../../server/db/repos/folders.ts';
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

/** A folder row below `parent` (null: the top), its path made as services/folders.ts makes it. */
function folder(organizationId: string, id: string, parent: Omit<FolderRow, 'apiKeyId'> | null, own: FolderRow['ownAccessType'] = null) {
  const segment = `${encodeURIComponent(id)}/`;
  return {
    organizationId,
    id,
    name: `Folder ${id}`,
    parentId: parent?.id ?? 'root',
    ancestors: parent ? [...parent.ancestors, parent.id] : ['root'],
    path: parent ? parent.path + segment : '/' + segment,
    ownAccessType: own,
    inheritAccess: own === null,
    accessType: own ?? parent?.accessType ?? 'public',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
  } satisfies Omit<FolderRow, 'apiKeyId'>;
}

const ids = (rows: unknown) => (rows as FolderRow[]).map((f) => f.id);

describe('folders', () => {
  it('answers every call as on SQLite: find, subtrees in path order, changes, rename, delete, tenant and organization isolation', async () => {
    const { k1, k2 } = both;
    const A = folder('o1', 'A', null, 'restricted');
    const b = folder('o1', 'b', A);
    const c = folder('o1', 'c', b);
    const a = folder('o1', 'a', null);
    // 'Aé' encodes as '/A%C3%A9/': next to '/A/' in code point order but outside its subtree
    const accent = folder('o1', 'Aé', null, 'organizationPrivate');
    const Z = folder('o1', 'Z', null);
    const answers = await onBoth<FoldersRepo>(both.storage.folders, foldersRepo(both.pg), async (repo) => [
      await repo.find(k1, 'o1', 'A'),
      await repo.subtree(k1, 'o1', '/'),
      await repo.insert(k1, a),
      await repo.insert(k1, A),
      await repo.insert(k1, b),
      await repo.insert(k1, c),
      await repo.insert(k1, accent),
      await repo.insert(k1, Z),
      await repo.insert(k1, folder('o2', 'A', null)),
      await repo.insert(k2, folder('o1', 'A', null)),
      await repo.find(k1, 'o1', 'A'),
      await repo.find(k1, 'o1', 'c'),
      await repo.find(k1, 'o2', 'b'),
      await repo.find(k2, 'o1', 'b'),
      // parents before children, code point order: '/A%C3%A9/' < '/A/' < '/A/b/' < '/A/b/c/' < '/Z/' < '/a/'
      await repo.subtree(k1, 'o1', '/'),
      await repo.subtree(k1, 'o1', A.path),
      await repo.subtree(k1, 'o1', b.path),
      await repo.subtree(k1, 'o1', '/missing/'),
      await repo.subtree(k1, 'o2', '/'),
      await repo.subtree(k2, 'o1', '/'),
      // b moves to the top with c below it, and A's access changes
      await repo.change(k1, 'o1', [
        { id: 'b', set: { parentId: 'root', ancestors: ['root'], path: '/b/', ownAccessType: 'public', inheritAccess: false, updatedAt: 1_700_000_000_002 } },
        { id: 'c', set: { ancestors: ['root', 'b'], path: '/b/c/', accessType: 'public' } },
        { id: 'A', set: { accessType: 'organizationPrivate', ownAccessType: 'organizationPrivate' } },
        { id: 'missing', set: { path: '/missing/' } },
      ]),
      await repo.subtree(k1, 'o1', '/'),
      await repo.subtree(k1, 'o1', '/b/'),
      await repo.rename(k1, 'o1', 'a', 'Renamed', 1_700_000_000_003),
      await repo.rename(k1, 'o1', 'missing', 'Nobody', 1_700_000_000_003),
      await repo.rename(k2, 'o1', 'a', 'Not mine', 1_700_000_000_003),
      await repo.find(k1, 'o1', 'a'),
      await repo.find(k2, 'o1', 'A'),
      // more ids than one slice: the real ones last
      await repo.delete(k1, 'o1', [...Array.from({ length: 520 }, (_, i) => `none-${i}`), 'c', 'Z']),
      await repo.delete(k1, 'o1', []),
      await repo.delete(k2, 'o1', ['a']),
      await repo.subtree(k1, 'o1', '/'),
      await repo.subtree(k1, 'o2', '/'),
      await repo.subtree(k2, 'o1', '/'),
      // a folder's delete holds its subtree: the rows as they are, parents before children, nothing changed
      await repo.holdSubtree(k1, 'o1', '/'),
      await repo.holdSubtree(k1, 'o1', '/A/'),
      await repo.holdSubtree(k2, 'o1', '/b/'),
      await repo.holdSubtree(k1, 'o1', '/missing/'),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[10]).toEqual({ ...A, apiKeyId: 'k1' });
    expect(s[12]).toBeUndefined();
    expect(s[13]).toBeUndefined();
    expect(ids(s[14])).toEqual(['Aé', 'A', 'b', 'c', 'Z', 'a']);
    expect(ids(s[15])).toEqual(['A', 'b', 'c']);
    expect(ids(s[16])).toEqual(['b', 'c']);
    expect(s[17]).toEqual([]);
    expect(ids(s[18])).toEqual(['A']);
    expect(ids(s[21])).toEqual(['Aé', 'A', 'Z', 'a', 'b', 'c']);
    expect((s[22] as FolderRow[]).map((f) => [f.id, f.ancestors, f.inheritAccess, f.ownAccessType])).toEqual([
      ['b', ['root'], false, 'public'],
      ['c', ['root', 'b'], true, null],
    ]);
    expect(s[26]).toMatchObject({ name: 'Renamed', updatedAt: 1_700_000_000_003 });
    expect(s[27]).toMatchObject({ name: 'Folder A', organizationId: 'o1', apiKeyId: 'k2' });
    expect(ids(s[31])).toEqual(['Aé', 'A', 'a', 'b']);
    expect(s[34]).toEqual(s[31]);
    expect(ids(s[35])).toEqual(['A']);
    expect(ids(s[36])).toEqual([]);
    expect(s[37]).toEqual([]);
    expect(ids(s[32])).toEqual(['A']);
    expect(ids(s[33])).toEqual(['A']);
    // booleans and JSON arrays come back as such on PostgreSQL
    expect((answers.pg[11] as FolderRow).ancestors).toEqual(['root', 'A', 'b']);
    expect((answers.pg[11] as FolderRow).inheritAccess).toBe(true);
  });
});
