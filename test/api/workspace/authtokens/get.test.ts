import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ rateLimits: { workspaceOperations: { max: 1000, windowMs: 60_000 } } });
});
afterAll(() => t.close());

describe('/v2/workspace/authtokens/get', () => {
  it("lists the key's tokens, including the one in credentials.json", async () => {
    const res = await t.callW('/v2/workspace/authtokens/get', { apiKey: t.credentials.apiKey });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      status: 'success',
      message: 'Auth tokens retrieved successfully.',
      data: { apiKey: t.credentials.apiKey, authTokens: [{ token: t.credentials.authToken, name: 'Default Auth Token', domains: [] }] },
    });
  });

  it('answers NOT_FOUND for an unknown key', async () => {
    const res = await t.callW('/v2/workspace/authtokens/get', { apiKey: 'no-such-key' });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toEqual({ status: 'NOT_FOUND', message: 'API key not found.' });
  });

  it('requires apiKey', async () => {
    expect(errorOf(await t.callW('/v2/workspace/authtokens/get', {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'apiKey is required.' });
  });
});

describe('header set A', () => {
  const path = '/v2/workspace/authtokens/get';
  it('names a missing workspace id header', async () => {
    const res = await t.callPublic(path, { apiKey: t.credentials.apiKey }, { 'x-svc-workspace-auth-token': t.credentials.workspaceAuthToken });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Workspace ID not found in headers.' });
  });

  it('names a missing workspace auth token header', async () => {
    const res = await t.callPublic(path, { apiKey: t.credentials.apiKey }, { 'x-svc-workspace-id': t.credentials.workspaceId });
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'Auth Token not found in headers.' });
  });

  it('refuses a wrong token and an unknown workspace alike', async () => {
    const variants: Record<string, string>[] = [{ 'x-svc-workspace-auth-token': 'f'.repeat(32) }, { 'x-svc-workspace-id': 'workspace_nope' }];
    for (const headers of variants) {
      const res = await t.callW(path, { apiKey: t.credentials.apiKey }, headers);
      expect(res.status).toBe(403);
      expect(errorOf(res)).toEqual({ status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' });
    }
  });

  it("refuses one workspace's token with another workspace's id, and API-key credentials in their place", async () => {
    const other = await createWorkspace(t);
    const mixed = await t.callW(path, { apiKey: t.credentials.apiKey }, { 'x-svc-workspace-auth-token': other.workspaceAuthToken });
    expect(mixed.status).toBe(403);
    const keyCreds = await t.callPublic(
      path,
      { apiKey: t.credentials.apiKey },
      { 'x-svc-workspace-id': t.credentials.apiKey, 'x-svc-workspace-auth-token': t.credentials.authToken },
    );
    expect(keyCreds.status).toBe(403);
  });

  it("does not show another workspace's key tokens", async () => {
    const other = await createWorkspace(t);
    const res = await t.callW(path, { apiKey: other.apiKey });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain(other.authToken);
  });
});

describe('header brand', () => {
  it('reads x-<HEADER_BRAND>-* headers', async () => {
    const branded = await startTestServer({ headerBrand: 'acme' });
    try {
      const c = branded.credentials;
      const ok = await branded.callPublic(
        path(),
        { apiKey: c.apiKey },
        { 'x-acme-workspace-id': c.workspaceId, 'x-acme-workspace-auth-token': c.workspaceAuthToken },
      );
      expect(ok.status).toBe(200);
      const svc = await branded.callW(path(), { apiKey: c.apiKey });
      expect(errorOf(svc).message).toBe('Workspace ID not found in headers.');
    } finally {
      await branded.close();
    }
  });
  const path = () => '/v2/workspace/authtokens/get';
});

describe('workspace operation rate limit', () => {
  it('answers RESOURCE_EXHAUSTED past the per-workspace limit', async () => {
    const limited = await startTestServer({ rateLimits: { workspaceOperations: { max: 3, windowMs: 60_000 } } });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.callW('/v2/workspace/get', {})).status).toBe(200);
      const res = await limited.callW('/v2/workspace/get', {});
      expect(res.status).toBe(429);
      expect(errorOf(res)).toEqual({ status: 'RESOURCE_EXHAUSTED', message: 'Rate limit exceeded. Try again after 1 minute.' });
    } finally {
      await limited.close();
    }
  });
});
