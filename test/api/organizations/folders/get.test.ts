import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  // a chain l0 … l9 (10 levels) with a side branch s under l0, and a second top-level folder
  const chain = Array.from({ length: 10 }, (_, i) => ({ folderId: `l${i}`, parentFolderId: i ? `l${i - 1}` : undefined }));
  await t.callK('/v2/organizations/folders/add', { organizationId: 'acme', createOrganization: true, folders: [...chain, { folderId: 's', parentFolderId: 'l0' }, { folderId: 'other' }] });
});
afterAll(() => t.close());

const get = (data: Record<string, unknown>, headers?: Record<string, string>) => t.callK('/v2/organizations/folders/get', { organizationId: 'acme', ...data }, headers);
const depth = (node: any): number => 1 + Math.max(0, ...(node.subFolders ?? []).map(depth));

describe('/v2/organizations/folders/get', () => {
  it('returns the whole tree from the top, nested as subFolders', async () => {
    const res = await get({});
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Folders retrieved successfully.');
    expect(res.body.result.data.map((f: any) => f.folderId)).toEqual(['l0', 'other']);
    const l0 = res.body.result.data[0];
    expect(l0.subFolders.map((f: any) => f.folderId).sort()).toEqual(['l1', 's']);
    expect(depth(l0)).toBe(10);
  });

  it("returns one folder's subtree, limited by maxDepth", async () => {
    expect(depth((await get({ folderId: 'l3' })).body.result.data[0])).toBe(7);
    const none = (await get({ folderId: 'l3', maxDepth: 0 })).body.result.data;
    expect(none).toHaveLength(1);
    expect(none[0].subFolders).toBeUndefined();
    expect(depth((await get({ folderId: 'l3', maxDepth: 1 })).body.result.data[0])).toBe(2);
    expect(depth((await get({ folderId: 'l3', maxDepth: 2 })).body.result.data[0])).toBe(3);
    expect(depth((await get({ maxDepth: 2 })).body.result.data[0])).toBe(3);
  });

  it('answers NOT_FOUND for an unknown folder, validates maxDepth, and keeps API keys apart', async () => {
    const res = await get({ folderId: 'nope' });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 'NOT_FOUND', message: 'Folder not found.' });
    expect((await get({ maxDepth: -1 })).body.error.message).toBe('maxDepth must be at least 0.');
    const other = await createWorkspace(t);
    expect((await get({}, other.headersK)).body.result.data).toEqual([]);
  });
});
