import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/workspace/get', () => {
  it('returns the default workspace made at first start, paid, with its testing key', async () => {
    const res = await t.callW('/v2/workspace/get', {});
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Workspace retrieved successfully');
    const data = res.body.result.data;
    expect(data.id).toBe(t.credentials.workspaceId);
    expect(data.authToken).toBe(t.credentials.workspaceAuthToken);
    expect(data.plan).toBe('paid');
    expect(data.apiKeyList[t.credentials.apiKey]).toEqual({ apiKeyName: expect.any(String), id: t.credentials.apiKey, type: 'testing' });
  });

  it("returns the calling workspace only: another workspace's credentials see their own", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/workspace/get', {}, other.headersW);
    expect(res.body.result.data.id).toBe(other.workspaceId);
    expect(Object.keys(res.body.result.data.apiKeyList)).toEqual([other.apiKey]);
  });

  it('refuses wrong credentials', async () => {
    const res = await t.callW('/v2/workspace/get', {}, { 'x-svc-workspace-auth-token': '0'.repeat(32) });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' });
  });
});
