import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import type { describeFolder } from '../../../../server/services/folders.ts';
import type { Outcomes } from '../../../../server/services/organizations.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A folder as /v2/organizations/folders/get answers it, with its subfolders nested. */
type FolderNode = ReturnType<typeof describeFolder> & { subFolders?: FolderNode[] };

let t: TestServer;
const LEVELS = 10;
const chainIds = Array.from({ length: LEVELS }, (_, i) => `l${i}`);
beforeAll(async () => {
  t = await startTestServer();
  // a chain l0 → l1 → … → l9 (10 levels), a side branch s (restricted) under l0 with a child s1, a second
  // top-level folder, and a sibling whose id starts like l0's ("l0 b") that must never show up in l0's subtree
  const chain = chainIds.map((folderId, i) => ({ folderId, folderName: `Level ${i}`, parentFolderId: i ? chainIds[i - 1] : undefined }));
  const res = await t.callK('/v2/organizations/folders/add', {
    organizationId: 'acme',
    createOrganization: true,
    folders: [
      ...chain,
      { folderId: 's', parentFolderId: 'l0', accessType: 'restricted' },
      { folderId: 's1', parentFolderId: 's' },
      { folderId: 'other' },
      { folderId: 'l0 b' },
    ],
  });
  expect(Object.values(dataOf<Outcomes>(res)).every((o) => o.success)).toBe(true);
  // another organization of the same key
  await t.callK('/v2/organizations/folders/add', { organizationId: 'beta', createOrganization: true, folders: [{ folderId: 'beta-only' }] });
});
afterAll(() => t.close());

const PATH = '/v2/organizations/folders/get';
const get = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK(PATH, { organizationId: 'acme', ...data }, headers);
const data = async (args: Record<string, unknown>) => {
  const res = await get(args);
  expect(res.status).toBe(200);
  return dataOf<FolderNode[]>(res);
};
/** Levels of nesting below and including `node`. */
const depth = (node: FolderNode): number => 1 + Math.max(0, ...(node.subFolders ?? []).map(depth));
/** `{ id: {children} }` of a tree, for comparing structure. */
const shape = (nodes: FolderNode[]): Record<string, unknown> => Object.fromEntries(nodes.map((n) => [n.folderId, n.subFolders ? shape(n.subFolders) : {}]));
/** Every node of a tree, depth-first. */
const flatten = (nodes: FolderNode[]): FolderNode[] => nodes.flatMap((n) => [n, ...flatten(n.subFolders ?? [])]);
/** The nested chain l{from} → … → l9 as `shape` renders it. */
const chainShape = (from: number, levels = LEVELS - from): Record<string, unknown> => {
  let node: Record<string, unknown> = {};
  for (let i = from + levels - 1; i >= from; i--) node = { [`l${i}`]: node };
  return node;
};

describe('/v2/organizations/folders/get', () => {
  it('returns the whole tree of the organization from the top, nested as subFolders', async () => {
    const res = await get({});
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Folders retrieved successfully.');
    const tops = dataOf<FolderNode[]>(res);
    expect(tops.map((f) => f.folderId).sort()).toEqual(['l0', 'l0 b', 'other']);
    const l0 = tops.find((f) => f.folderId === 'l0')!;
    expect(shape([l0])).toEqual({ l0: { ...(chainShape(1) as object), s: { s1: {} } } });
    expect(depth(l0)).toBe(LEVELS);
    // 13 folders, each exactly once, none of another organization
    expect(
      flatten(tops)
        .map((f) => f.folderId)
        .sort(),
    ).toEqual([...chainIds, 'l0 b', 'other', 's', 's1'].sort());

    // every record carries its place in the tree
    const byId = new Map(flatten(tops).map((f) => [f.folderId, f]));
    chainIds.forEach((id, i) => {
      expect(byId.get(id)).toMatchObject({
        folderName: `Level ${i}`,
        parentFolderId: i ? `l${i - 1}` : 'root',
        ancestors: ['root', ...chainIds.slice(0, i)],
        accessType: 'public',
        inheritAccessFromParent: true,
      });
    });
    expect(byId.get('s1')).toMatchObject({ parentFolderId: 's', ancestors: ['root', 'l0', 's'], accessType: 'restricted', inheritAccessFromParent: true });
    // the deepest folder: the full record, without subFolders
    expect(byId.get('l9')).toEqual({
      folderId: 'l9',
      folderName: 'Level 9',
      organizationId: 'acme',
      parentFolderId: 'l8',
      apiKey: t.credentials.apiKey,
      createdAt: expect.any(Number),
      lastUpdated: expect.any(Number),
      ancestors: ['root', ...chainIds.slice(0, 9)],
      accessType: 'public',
      inheritAccessFromParent: true,
    });
  });

  it("returns one folder's subtree with the folder at the top", async () => {
    const l3 = await data({ folderId: 'l3' });
    expect(l3).toHaveLength(1);
    expect(shape(l3)).toEqual(chainShape(3));
    expect(depth(l3[0]!)).toBe(LEVELS - 3);
    // the top of a subtree keeps its real ancestors
    expect(l3[0]).toMatchObject({ folderId: 'l3', parentFolderId: 'l2', ancestors: ['root', 'l0', 'l1', 'l2'] });
    expect(shape(await data({ folderId: 's' }))).toEqual({ s: { s1: {} } });
    // a leaf is returned alone
    const leaf = await data({ folderId: 'l9' });
    expect(leaf).toHaveLength(1);
    expect(leaf[0]!.subFolders).toBeUndefined();
    // a folder whose id starts like another's is not part of its subtree, and the other way round
    expect(shape(await data({ folderId: 'l0 b' }))).toEqual({ 'l0 b': {} });
    expect(flatten(await data({ folderId: 'l0' })).map((f) => f.folderId)).not.toContain('l0 b');
  });

  it('limits the levels returned with maxDepth 0, 1 and 2 on a tree 10 levels deep', async () => {
    // maxDepth 0: the folder alone
    const zero = await data({ folderId: 'l0', maxDepth: 0 });
    expect(zero).toHaveLength(1);
    expect(zero[0]!.folderId).toBe('l0');
    expect(zero[0]!.subFolders).toBeUndefined();
    // maxDepth 1: its children, without theirs
    const oneLevel = await data({ folderId: 'l0', maxDepth: 1 });
    expect(shape(oneLevel)).toEqual({ l0: { l1: {}, s: {} } });
    expect(oneLevel[0]!.subFolders!.every((f) => f.subFolders === undefined)).toBe(true);
    // maxDepth 2: grandchildren too
    expect(shape(await data({ folderId: 'l0', maxDepth: 2 }))).toEqual({ l0: { l1: { l2: {} }, s: { s1: {} } } });
    // counted from the folder asked for, not from the top
    expect(shape(await data({ folderId: 'l5', maxDepth: 2 }))).toEqual(chainShape(5, 3));
    expect(shape(await data({ folderId: 'l8', maxDepth: 2 }))).toEqual(chainShape(8));
    // and from the top level when no folder is given
    expect(shape(await data({ maxDepth: 0 }))).toEqual({ l0: {}, 'l0 b': {}, other: {} });
    expect(shape(await data({ maxDepth: 1 }))).toEqual({ l0: { l1: {}, s: {} }, 'l0 b': {}, other: {} });
    const two = await data({ maxDepth: 2 });
    expect(depth(two.find((f) => f.folderId === 'l0')!)).toBe(3);
    // a limit beyond the tree returns all of it
    expect(depth((await data({ folderId: 'l0', maxDepth: 50 }))[0]!)).toBe(LEVELS);
    expect(depth((await data({ folderId: 'l0', maxDepth: LEVELS - 1 }))[0]!)).toBe(LEVELS);
    expect(depth((await data({ folderId: 'l0', maxDepth: LEVELS - 2 }))[0]!)).toBe(LEVELS - 1);
  });

  it("answers NOT_FOUND 'Folder not found.' for an unknown folder, and for one of another organization", async () => {
    for (const args of [{ folderId: 'nope' }, { folderId: 'beta-only' }, { organizationId: 'ghost-org', folderId: 'l0' }]) {
      const res = await get(args);
      expect(res.status).toBe(404);
      expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    }
    // the other organization's tree is its own
    expect(shape(await data({ organizationId: 'beta' }))).toEqual({ 'beta-only': {} });
  });

  it('validates the input', async () => {
    const bad = async (args: unknown, message: string) => {
      const res = await t.callK(PATH, args);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message });
    };
    await bad({}, 'organizationId is required.');
    await bad({ organizationId: 'acme', maxDepth: -1 }, 'maxDepth must be at least 0.');
    await bad({ organizationId: 'acme', maxDepth: 'two' }, 'maxDepth must be a number, not a string.');
    await bad({ organizationId: 'acme', folderId: 7 }, 'folderId must be a string, not a number.');
    expect(errorOf(await t.callK(PATH, { organizationId: 'acme', maxDepth: 1.5 })).status).toBe('INVALID_ARGUMENT');
  });

  it("keeps API keys apart: another key sees none of this key's folders", async () => {
    const other = await createWorkspace(t);
    const all = await get({}, other.headersK);
    expect(all.status).toBe(200);
    expect(dataOf<FolderNode[]>(all)).toEqual([]);
    const one = await get({ folderId: 'l0' }, other.headersK);
    expect(one.status).toBe(404);
    expect(errorOf(one)).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    // its own folders with the same ids are its own
    await t.callPublic(
      '/v2/organizations/folders/add',
      { organizationId: 'acme', createOrganization: true, folders: [{ folderId: 'l0', folderName: 'Theirs' }] },
      other.headersK,
    );
    expect(shape(dataOf<FolderNode[]>(await get({}, other.headersK)))).toEqual({ l0: {} });
    expect((await data({ folderId: 'l0', maxDepth: 0 }))[0]!.folderName).toBe('Level 0');
    expect(depth((await data({ folderId: 'l0' }))[0]!)).toBe(LEVELS);
  });
});
