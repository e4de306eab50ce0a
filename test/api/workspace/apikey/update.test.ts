import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A key as apikey/update and apikeys/get describe it (the fields read here). */
interface ApiKeyRecord {
  apiKey: string;
  apiKeyName: string;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/workspace/apikey/update', () => {
  it('renames a key', async () => {
    const res = await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey, apiKeyName: 'Laptop key' });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('API key updated successfully.');
    expect(dataOf<ApiKeyRecord>(res)).toMatchObject({ apiKey: t.credentials.apiKey, apiKeyName: 'Laptop key' });
    const listed = await t.callW('/v2/workspace/apikeys/get', { apiKeys: [t.credentials.apiKey] });
    expect(dataOf<ApiKeyRecord[]>(listed)[0]!.apiKeyName).toBe('Laptop key');
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'apiKeyName is required.',
    });
    expect(errorOf(await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey, apiKeyName: '  ' })).message).toBe(
      'apiKeyName must not be empty.',
    );
  });

  it("answers NOT_FOUND for an unknown key and for another workspace's key, which stays unchanged", async () => {
    const unknown = await t.callW('/v2/workspace/apikey/update', { apiKey: 'nope', apiKeyName: 'x' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toEqual({ status: 'NOT_FOUND', message: 'API key not found.' });
    const other = await createWorkspace(t);
    const foreign = await t.callW('/v2/workspace/apikey/update', { apiKey: other.apiKey, apiKeyName: 'hijacked' });
    expect(foreign.status).toBe(404);
    const theirs = await t.callPublic('/v2/workspace/apikeys/get', {}, other.headersW);
    expect(dataOf<ApiKeyRecord[]>(theirs)[0]!.apiKeyName).not.toBe('hijacked');
  });
});
