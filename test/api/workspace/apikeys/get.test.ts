import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A key record of apikeys/get (the field read here); apikey/create answers the new key the same way. */
interface ApiKeyRecord {
  apiKey: string;
}

let t: TestServer;
const created: string[] = [];
beforeAll(async () => {
  t = await startTestServer();
  created.push(t.credentials.apiKey);
  for (let i = 0; i < 14; i++) {
    const res = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'a@example.com', type: 'testing', apiKeyName: `Key ${i}` });
    created.push(dataOf<ApiKeyRecord>(res).apiKey);
  }
});
afterAll(() => t.close());

async function walk(pageSize: number, filter?: string[]) {
  const seen: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const res = await t.callW('/v2/workspace/apikeys/get', { pageSize, pageToken, apiKeys: filter });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('API keys retrieved successfully.');
    expect(dataOf<ApiKeyRecord[]>(res).length).toBeLessThanOrEqual(pageSize);
    seen.push(...dataOf<ApiKeyRecord[]>(res).map((k) => k.apiKey));
    pageToken = resultOf(res).pageToken ?? undefined;
    if (!pageToken) return seen;
  }
  throw new Error('pagination did not end');
}

describe('/v2/workspace/apikeys/get', () => {
  it('walks every key exactly once, oldest first, with page sizes 1, 4 and 50', async () => {
    for (const size of [1, 4, 50]) expect(await walk(size)).toEqual(created);
  });

  it('filters by apiKeys, paginating the filtered set', async () => {
    const filter = [created[3]!, created[7]!, created[11]!];
    expect(await walk(2, filter)).toEqual(filter);
  });

  it('returns key records without secrets', async () => {
    const res = await t.callW('/v2/workspace/apikeys/get', { apiKeys: [t.credentials.apiKey] });
    expect(dataOf<ApiKeyRecord[]>(res)).toEqual([
      {
        apiKey: t.credentials.apiKey,
        apiKeyName: expect.any(String),
        type: 'testing',
        ownerEmail: 'owner@hearth.local',
        persistenceDBRegion: null,
        realtimeDBRegion: null,
        allowedDomains: [],
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    ]);
    expect(resultOf(res).pageToken).toBeNull();
  });

  it('refuses forged, altered and foreign page tokens with INVALID_ARGUMENT', async () => {
    const first = await t.callW('/v2/workspace/apikeys/get', { pageSize: 2 });
    const token: string = resultOf(first).pageToken!;
    const bad = async (data: unknown, headers?: Record<string, string>) => {
      const res = await t.callW('/v2/workspace/apikeys/get', data, headers);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Invalid pageToken.' });
    };
    await bad({ pageSize: 2, pageToken: 'garbage' });
    const [payload, signature] = token.split('.');
    const forgedPayload = Buffer.from(JSON.stringify([0, ''])).toString('base64url');
    await bad({ pageSize: 2, pageToken: `${forgedPayload}.${signature}` });
    await bad({ pageSize: 2, pageToken: `${payload}.${signature!.slice(0, -1)}${signature!.endsWith('A') ? 'B' : 'A'}` });
    // tied to the query: the same token with another filter is refused
    await bad({ pageSize: 2, pageToken: token, apiKeys: [created[0]] });
    // tied to the workspace: another workspace cannot use it
    const other = await createWorkspace(t);
    await bad({ pageSize: 2, pageToken: token }, other.headersW);
  });

  it('reads "pageToken": null (what the last page returns) as the first page', async () => {
    const res = await t.callW('/v2/workspace/apikeys/get', { pageSize: 50, pageToken: null });
    expect(res.status).toBe(200);
    expect(dataOf<ApiKeyRecord[]>(res).map((k) => k.apiKey)).toEqual(created);
  });

  it('validates pageSize', async () => {
    expect(errorOf(await t.callW('/v2/workspace/apikeys/get', { pageSize: 0 })).message).toBe('pageSize must be at least 1.');
    expect((await t.callW('/v2/workspace/apikeys/get', { pageSize: 1.5 })).status).toBe(400);
  });

  it("never lists another workspace's keys", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/workspace/apikeys/get', { apiKeys: created }, other.headersW);
    expect(dataOf<ApiKeyRecord[]>(res)).toEqual([]);
  });
});
