import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/workspace/apikey/update', () => {
  it('renames a key', async () => {
    const res = await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey, apiKeyName: 'Laptop key' });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('API key updated successfully.');
    expect(res.body.result.data).toMatchObject({ apiKey: t.credentials.apiKey, apiKeyName: 'Laptop key' });
    const listed = await t.callW('/v2/workspace/apikeys/get', { apiKeys: [t.credentials.apiKey] });
    expect(listed.body.result.data[0].apiKeyName).toBe('Laptop key');
  });

  it('validates the input', async () => {
    expect((await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'apiKeyName is required.',
    });
    expect((await t.callW('/v2/workspace/apikey/update', { apiKey: t.credentials.apiKey, apiKeyName: '  ' })).body.error.message).toBe(
      'apiKeyName must not be empty.',
    );
  });

  it("answers NOT_FOUND for an unknown key and for another workspace's key, which stays unchanged", async () => {
    const unknown = await t.callW('/v2/workspace/apikey/update', { apiKey: 'nope', apiKeyName: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({ status: 'NOT_FOUND', message: 'API key not found.' });
    const other = await createWorkspace(t);
    const foreign = await t.callW('/v2/workspace/apikey/update', { apiKey: other.apiKey, apiKeyName: 'hijacked' });
    expect(foreign.status).toBe(404);
    const theirs = await t.callPublic('/v2/workspace/apikeys/get', {}, other.headersW);
    expect(theirs.body.result.data[0].apiKeyName).not.toBe('hijacked');
  });
});
