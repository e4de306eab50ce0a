import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
const ids = Array.from({ length: 12 }, (_, i) => `org-${String(i).padStart(2, '0')}`);
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/add', { organizations: ids.map((organizationId) => ({ organizationId, organizationName: organizationId.toUpperCase() })) });
});
afterAll(() => t.close());

async function walk(pageSize: number, organizationIds?: string[]) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const res = await t.callK('/v2/organizations/get', { pageSize, pageToken, organizationIds });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Organization(s) retrieved successfully.');
    expect('pageToken' in resultOf(res)).toBe(false);
    seen.push(...dataOf<Array<{ id: string }>>(res).map((o) => o.id));
    pageToken = resultOf(res).nextPageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/organizations/get', () => {
  it('walks every organization exactly once by id, with nextPageToken beside data', async () => {
    for (const size of [1, 3, 1000]) expect(await walk(size)).toEqual(ids);
  });

  it('filters by organizationIds', async () => {
    expect(await walk(2, ['org-05', 'org-01', 'nope'])).toEqual(['org-01', 'org-05']);
  });

  it('refuses forged, altered and foreign page tokens', async () => {
    const token = resultOf(await t.callK('/v2/organizations/get', { pageSize: 2 })).nextPageToken!;
    const bad = async (data: Record<string, unknown>, headers?: Record<string, string>) =>
      expect(errorOf(await t.callK('/v2/organizations/get', { pageSize: 2, ...data }, headers))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'Invalid pageToken.',
      });
    await bad({ pageToken: 'abc.def' });
    await bad({ pageToken: token.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')) });
    await bad({ pageToken: token, organizationIds: ['org-01'] });
    const other = await createWorkspace(t);
    await bad({ pageToken: token }, other.headersK);
  });

  it("shows nothing of another API key's organizations", async () => {
    const other = await createWorkspace(t);
    expect(dataOf<unknown[]>(await t.callPublic('/v2/organizations/get', {}, other.headersK))).toEqual([]);
  });
});
