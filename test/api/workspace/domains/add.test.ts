import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/domains/add';

/** domains/get's answer. */
interface Domains {
  domains: string[];
}
const list = async (headers: Record<string, string>) => dataOf<Domains>(await t.callPublic('/v2/workspace/domains/get', {}, headers)).domains;

describe('/v2/workspace/domains/add', () => {
  it('adds domains, normalized, and the key lists them (domains/get and apikeys/get)', async () => {
    const ws = await createWorkspace(t);
    const res = await t.callPublic(path, { domains: [' App.Example.com ', '*.example.org', 'localhost:5173'] }, ws.headersK);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Domain(s) added successfully to allowed domains.',
      data: { domains: ['app.example.com', '*.example.org', 'localhost:5173'], added: ['app.example.com', '*.example.org', 'localhost:5173'], skipped: [] },
    });
    expect(await list(ws.headersK)).toEqual(['app.example.com', '*.example.org', 'localhost:5173']);
    const keys = await t.callPublic('/v2/workspace/apikeys/get', {}, ws.headersW);
    expect(dataOf<{ allowedDomains: string[] }[]>(keys)[0]!.allowedDomains).toEqual(['app.example.com', '*.example.org', 'localhost:5173']);
  });

  it('skips domains already allowed, and says so', async () => {
    const ws = await createWorkspace(t);
    await t.callPublic(path, { domains: ['a.example.com'] }, ws.headersK);
    const res = await t.callPublic(path, { domains: ['b.example.com', 'A.example.com', 'b.example.com'] }, ws.headersK);
    expect(resultOf(res).message).toBe('Domain(s) added successfully to allowed domains. Skipped existing domains.');
    expect(dataOf<unknown>(res)).toEqual({
      domains: ['a.example.com', 'b.example.com'],
      added: ['b.example.com'],
      skipped: ['a.example.com', 'b.example.com'],
    });
    expect(await list(ws.headersK)).toEqual(['a.example.com', 'b.example.com']);
    // nothing new: still a success, nothing written
    const again = await t.callPublic(path, { domains: ['a.example.com'] }, ws.headersK);
    expect(dataOf<unknown>(again)).toEqual({ domains: ['a.example.com', 'b.example.com'], added: [], skipped: ['a.example.com'] });
  });

  it('refuses names that are not domains, an empty list, and more than 100 domains in all (nothing written)', async () => {
    const ws = await createWorkspace(t);
    for (const domains of [['https://app.example.com'], ['app example.com'], ['app.example.com/path'], [''], []]) {
      const res = await t.callPublic(path, { domains }, ws.headersK);
      expect(res.status, JSON.stringify(domains)).toBe(400);
      expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
      expect(errorOf(res).message).toMatch(/domains/);
    }
    const many = Array.from({ length: 60 }, (_, i) => `d${i}.example.com`);
    expect((await t.callPublic(path, { domains: many }, ws.headersK)).status).toBe(200);
    const over = await t.callPublic(path, { domains: [...many.slice(0, 10), ...Array.from({ length: 41 }, (_, i) => `e${i}.example.com`)] }, ws.headersK);
    expect(over.status).toBe(400);
    expect(errorOf(over).message).toBe('An API key can have at most 100 allowed domains (it has 60).');
    expect(await list(ws.headersK)).toEqual(many);
    // exactly 100 is allowed
    expect((await t.callPublic(path, { domains: Array.from({ length: 40 }, (_, i) => `e${i}.example.com`) }, ws.headersK)).status).toBe(200);
    expect((await list(ws.headersK)).length).toBe(100);
  });

  it("changes only the calling key's list", async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    await t.callPublic(path, { domains: ['only-a.example.com'] }, a.headersK);
    expect(await list(b.headersK)).toEqual([]);
    expect(await list(a.headersK)).toEqual(['only-a.example.com']);
  });
});
