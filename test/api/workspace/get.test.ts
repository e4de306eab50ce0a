import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../helpers/server.ts';

/** workspace/get's answer (the fields read here). */
interface WorkspaceAnswer {
  id: string;
  authToken: string;
  plan: string;
  apiKeyList: Record<string, unknown>;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('/v2/workspace/get', () => {
  it('returns the default workspace made at first start, paid, with its testing key', async () => {
    const res = await t.callW('/v2/workspace/get', {});
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Workspace retrieved successfully');
    const data = dataOf<WorkspaceAnswer>(res);
    expect(data.id).toBe(t.credentials.workspaceId);
    expect(data.authToken).toBe(t.credentials.workspaceAuthToken);
    expect(data.plan).toBe('paid');
    expect(data.apiKeyList[t.credentials.apiKey]).toEqual({ apiKeyName: expect.any(String), id: t.credentials.apiKey, type: 'testing' });
  });

  it("returns the calling workspace only: another workspace's credentials see their own", async () => {
    const other = await createWorkspace(t);
    const res = await t.callPublic('/v2/workspace/get', {}, other.headersW);
    expect(dataOf<WorkspaceAnswer>(res).id).toBe(other.workspaceId);
    expect(Object.keys(dataOf<WorkspaceAnswer>(res).apiKeyList)).toEqual([other.apiKey]);
  });

  it('refuses wrong credentials', async () => {
    const res = await t.callW('/v2/workspace/get', {}, { 'x-svc-workspace-auth-token': '0'.repeat(32) });
    expect(res.status).toBe(403);
    expect(errorOf(res)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' });
  });
});
