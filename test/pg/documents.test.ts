// The documents repository on PostgreSQL answers as on SQLite (see organizations.test.ts): the same calls on both
// engines, every answer compared, and the answers checked for what they should be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocumentRow, type DocumentsRepo, documentsRepo } from '../../server/db/repos/documents.ts';
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

const doc = (organizationId: string, id: string, folderId: string | null): Omit<DocumentRow, 'apiKeyId'> => ({
  organizationId,
  id,
  name: `Doc ${id}`,
  folderId,
  accessType: 'public',
  disabled: false,
  metadata: { z: id, a: { y: [1, 'two', null], b: false } },
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
});

const ids = (rows: unknown) => (rows as DocumentRow[]).map((d) => d.id);
/** A map's entries in order (toEqual alone would not compare the order). */
const entries = (map: Map<string, DocumentRow>) => [...map.entries()];

describe('documents', () => {
  it('answers every call as on SQLite: find, findMany, ids in folders, pages by folder, changes, deletes, tenant isolation', async () => {
    const { k1, k2 } = both;
    const bulk = Array.from({ length: 510 }, (_, i) => doc('o1', `bulk-${String(i).padStart(3, '0')}`, 'bulk'));
    const answers = await onBoth<DocumentsRepo>(both.storage.documents, documentsRepo(both.pg), async (repo) => [
      await repo.find(k1, 'o1', 'd1'),
      await repo.insert(k1, [doc('o1', 'd1', null), doc('o1', 'D2', 'f1'), doc('o1', 'd3', 'f1'), doc('o1', 'é', null), doc('o1', 'x', 'f2')]),
      await repo.insert(k1, [doc('o2', 'd1', 'f1')]),
      await repo.insert(k2, [doc('o1', 'd1', 'f1')]),
      await repo.insert(k1, []),
      await repo.insert(k1, bulk),
      await repo.find(k1, 'o1', 'd1'),
      await repo.find(k1, 'o2', 'D2'),
      entries(await repo.findMany(k1, 'o1', ['d3', 'missing', 'é', 'D2', 'd1'])),
      entries(await repo.findMany(k1, 'o1', [])),
      entries(await repo.findMany(k2, 'o1', ['d1', 'D2'])),
      (await repo.findMany(k1, 'o1', ['x', ...bulk.map((d) => d.id).reverse()])).size,
      await repo.idsInFolders(k1, 'o1', ['f2', 'f1', 'nope']),
      await repo.idsInFolders(k1, 'o1', []),
      await repo.idsInFolders(k2, 'o1', ['f1', 'f2']),
      (await repo.idsInFolders(k1, 'o1', ['bulk'])).length,
      // code point order: 'D2' < 'bulk-…' < 'd1' < 'd3' < 'x' < 'é'
      ids(await repo.page(k1, 'o1', { folderId: undefined, after: undefined, limit: 3 })),
      ids(await repo.page(k1, 'o1', { folderId: undefined, after: 'bulk-509', limit: 10 })),
      await repo.page(k1, 'o1', { folderId: null, after: undefined, limit: 10 }),
      await repo.page(k1, 'o1', { folderId: null, after: 'd1', limit: 10 }),
      await repo.page(k1, 'o1', { folderId: 'f1', after: undefined, limit: 10 }),
      await repo.page(k1, 'o1', { folderId: 'f1', after: 'D2', limit: 1 }),
      await repo.page(k1, 'o1', { folderId: 'missing', after: undefined, limit: 10 }),
      await repo.page(k2, 'o1', { folderId: undefined, after: undefined, limit: 10 }),
      await repo.page(k1, 'o2', { folderId: 'f1', after: undefined, limit: 10 }),
      await repo.change(k1, 'o1', [
        { id: 'd1', set: { name: 'Renamed', metadata: { second: 2, first: 1 }, disabled: true, updatedAt: 1_700_000_000_001 } },
        { id: 'missing', set: { name: 'Nobody' } },
        { id: 'D2', set: { folderId: null, accessType: 'restricted' } },
      ]),
      await repo.change(k2, 'o1', [{ id: 'D2', set: { name: 'Not mine' } }]),
      await repo.change(k1, 'o1', []),
      // a document the caller found and that is gone (a move's read, then a delete's commit): ConcurrentChange, which
      // runs the move's unit of work again, there to answer it not found; another key's document is not found either
      [
        await repo.changeAll(k1, 'o1', ['d3', 'x'], { folderId: 'f3', accessType: 'organizationPrivate', updatedAt: 1_700_000_000_002 }),
        await repo.changeAll(k1, 'o1', ['missing'], { disabled: true }).then(
          () => 'changed',
          (error: Error) => error.name,
        ),
        await repo.changeAll(k2, 'o1', ['d3'], { disabled: true }).then(
          () => 'changed',
          (error: Error) => error.name,
        ),
      ],
      await repo.changeAll(k1, 'o1', [...bulk.map((d) => d.id)], { disabled: true }),
      await repo.find(k1, 'o1', 'd1'),
      await repo.find(k1, 'o1', 'D2'),
      await repo.find(k1, 'o1', 'd3'),
      await repo.find(k1, 'o1', 'bulk-505'),
      await repo.find(k2, 'o1', 'd1'),
      await repo.delete(k1, 'o1', ['d1', 'missing', ...bulk.slice(0, 505).map((d) => d.id)]),
      await repo.delete(k2, 'o1', ['x']),
      // a folder's delete: the documents held (their rows as they are), those still in its folders deleted
      [...(await repo.holdAll(k1, 'o1', ['d3', 'x', 'é', 'nope'])).values()].map((row) => [row.id, row.folderId, row.updatedAt]),
      await repo.holdAll(k1, 'o1', ['d3', 'x', 'é']).then((held) =>
        repo.delete(
          k1,
          'o1',
          [...held.values()].filter((row) => row.folderId === 'f3').map((row) => row.id),
        ),
      ),
      ids(await repo.page(k1, 'o1', { folderId: undefined, after: undefined, limit: 100 })),
      ids(await repo.page(k1, 'o2', { folderId: undefined, after: undefined, limit: 100 })),
      ids(await repo.page(k2, 'o1', { folderId: undefined, after: undefined, limit: 100 })),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s[6]).toEqual({ ...doc('o1', 'd1', null), apiKeyId: 'k1' });
    expect(s[7]).toBeUndefined();
    expect((s[8] as Array<[string, DocumentRow]>).map(([id]) => id)).toEqual(['D2', 'd1', 'd3', 'é']);
    expect(s[9]).toEqual([]);
    expect((s[10] as Array<[string, DocumentRow]>).map(([id, row]) => [id, row.apiKeyId])).toEqual([['d1', 'k2']]);
    expect(s[11]).toBe(511);
    expect(s[12]).toEqual(['D2', 'd3', 'x']);
    expect(s[14]).toEqual(['d1']);
    expect(s[15]).toBe(510);
    expect(s[16]).toEqual(['D2', 'bulk-000', 'bulk-001']);
    expect(s[17]).toEqual(['d1', 'd3', 'x', 'é']);
    expect(ids(s[18])).toEqual(['d1', 'é']);
    expect(ids(s[19])).toEqual(['é']);
    expect(ids(s[21])).toEqual(['d3']);
    expect(s[25]).toEqual([true, false, true]);
    expect(s[26]).toEqual([false]);
    expect(s[27]).toEqual([]);
    expect(s[28]).toEqual([undefined, 'ConcurrentChange', 'ConcurrentChange']);
    expect(s[30]).toMatchObject({ name: 'Renamed', disabled: true, metadata: { second: 2, first: 1 } });
    expect(s[31]).toMatchObject({ folderId: null, accessType: 'restricted' });
    expect(s[32]).toMatchObject({ folderId: 'f3', accessType: 'organizationPrivate' });
    expect(s[33]).toMatchObject({ disabled: true });
    expect(s[34]).toMatchObject({ name: 'Doc d1', disabled: false });
    expect(s[37]).toEqual([
      ['d3', 'f3', 1_700_000_000_002],
      ['x', 'f3', 1_700_000_000_002],
      ['é', null, 1_700_000_000_000],
    ]);
    expect(s[39]).toEqual(['D2', 'bulk-505', 'bulk-506', 'bulk-507', 'bulk-508', 'bulk-509', 'é']);
    expect(s[40]).toEqual(['d1']);
    expect(s[41]).toEqual(['d1']);
    // JSON comes back as written, key order included, and booleans as booleans
    expect(JSON.stringify((answers.pg[30] as DocumentRow).metadata)).toBe('{"second":2,"first":1}');
    expect(JSON.stringify((answers.pg[6] as DocumentRow).metadata)).toBe('{"z":"d1","a":{"y":[1,"two",null],"b":false}}');
  });
});
