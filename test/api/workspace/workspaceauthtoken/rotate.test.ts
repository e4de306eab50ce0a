// Issue 42, point 10a: the workspace auth token can be rotated; the old value is refused by the very next call (the
// credentials cache had verified it), the new one works, and the default workspace's credentials.json follows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, workspaceHeaders, type TestServer } from '../../../helpers/server.ts';

const path = '/v2/workspace/workspaceauthtoken/rotate';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const getWith = (workspaceId: string, workspaceAuthToken: string) =>
  call(t.url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId, workspaceAuthToken }));
const credentialsFile = () => JSON.parse(readFileSync(join(t.dataDir, 'credentials.json'), 'utf8')) as { workspaceId: string; workspaceAuthToken: string };

describe(path, () => {
  it('replaces the token: the old one is refused at once, the new one works, workspace/get answers it', async () => {
    const ws = await createWorkspace(t);
    // verified once, so the credentials cache holds the old pair
    expect((await getWith(ws.workspaceId, ws.workspaceAuthToken)).status).toBe(200);

    const res = await call(t.url, path, {}, ws.headersW);
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('Workspace auth token rotated successfully.');
    const { workspaceId, authToken } = dataOf<{ workspaceId: string; authToken: string }>(res);
    expect(workspaceId).toBe(ws.workspaceId);
    expect(authToken).toMatch(/^[0-9a-f]{32}$/);
    expect(authToken).not.toBe(ws.workspaceAuthToken);

    const old = await getWith(ws.workspaceId, ws.workspaceAuthToken);
    expect(old.status).toBe(403);
    expect(errorOf(old)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' });
    const fresh = await getWith(ws.workspaceId, authToken);
    expect(fresh.status).toBe(200);
    expect(dataOf<{ authToken: string }>(fresh).authToken).toBe(authToken);
    // the workspace's API keys are untouched
    expect((await call(t.url, '/v2/workspace/apikeyconfig/get', {}, ws.headersK)).status).toBe(200);
  });

  it("leaves other workspaces' tokens and the default workspace's credentials.json alone", async () => {
    const [a, b] = [await createWorkspace(t), await createWorkspace(t)];
    const before = credentialsFile();
    expect((await call(t.url, path, {}, a.headersW)).status).toBe(200);
    expect((await getWith(b.workspaceId, b.workspaceAuthToken)).status).toBe(200);
    expect(credentialsFile()).toEqual(before);
  });

  it("rewrites credentials.json when it rotates the default workspace's token", async () => {
    const before = credentialsFile();
    expect(before.workspaceId).toBe(t.credentials.workspaceId);
    const res = await t.callW(path, {});
    expect(res.status).toBe(200);
    const { authToken } = dataOf<{ authToken: string }>(res);
    expect(credentialsFile()).toEqual({ ...before, workspaceAuthToken: authToken });
    expect((await getWith(before.workspaceId, before.workspaceAuthToken)).status).toBe(403);
    expect((await getWith(before.workspaceId, authToken)).status).toBe(200);
    t.credentials.workspaceAuthToken = authToken;
  });

  it('refuses bad input and wrong credentials with a clear error', async () => {
    const extra = await t.callW(path, { nope: 1 });
    expect(extra.status).toBe(400);
    expect(errorOf(extra).status).toBe('INVALID_ARGUMENT');
    const wrong = await getWith(t.credentials.workspaceId, '0'.repeat(32));
    expect(wrong.status).toBe(403);
    const rotateWrong = await call(t.url, path, {}, workspaceHeaders({ workspaceId: t.credentials.workspaceId, workspaceAuthToken: '0'.repeat(32) }));
    expect(rotateWrong.status).toBe(403);
    expect(errorOf(rotateWrong).status).toBe('PERMISSION_DENIED');
  });
});
