import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/domains/delete';

/** domains/get's answer. */
interface Domains {
  domains: string[];
}
const list = async (headers: Record<string, string>) => dataOf<Domains>(await t.callPublic('/v2/workspace/domains/get', {}, headers)).domains;

describe('/v2/workspace/domains/delete', () => {
  it('removes the named domains (any case), keeps the others in order, and says which were not listed', async () => {
    const ws = await createWorkspace(t);
    await t.callPublic('/v2/workspace/domains/add', { domains: ['a.example.com', 'b.example.com', 'c.example.com'] }, ws.headersK);
    const res = await t.callPublic(path, { domains: ['B.example.com', 'x.example.com'] }, ws.headersK);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Domain(s) removed successfully from allowed domains.',
      data: { domains: ['a.example.com', 'c.example.com'], removed: ['b.example.com'], notFound: ['x.example.com'] },
    });
    expect(await list(ws.headersK)).toEqual(['a.example.com', 'c.example.com']);
    const rest = await t.callPublic(path, { domains: ['a.example.com', 'c.example.com'] }, ws.headersK);
    expect(dataOf<unknown>(rest)).toEqual({ domains: [], removed: ['a.example.com', 'c.example.com'], notFound: [] });
    expect(await list(ws.headersK)).toEqual([]);
  });

  it("refuses names that are not domains and an empty list, and touches only the calling key's list", async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    await t.callPublic('/v2/workspace/domains/add', { domains: ['shared.example.com'] }, a.headersK);
    await t.callPublic('/v2/workspace/domains/add', { domains: ['shared.example.com'] }, b.headersK);
    for (const domains of [[], ['not a domain']]) {
      const res = await t.callPublic(path, { domains }, a.headersK);
      expect(res.status).toBe(400);
      expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
    }
    await t.callPublic(path, { domains: ['shared.example.com'] }, a.headersK);
    expect(await list(a.headersK)).toEqual([]);
    expect(await list(b.headersK)).toEqual(['shared.example.com']);
  });
});
