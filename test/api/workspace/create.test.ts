import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateWorkspaceSettings } from '../../../server/services/workspaces.ts';
import { createWorkspace, uniqueEmail } from '../../helpers/factories.ts';
import { call, dataOf, errorOf, resultOf, startTestServer, workspaceHeaders, type TestServer } from '../../helpers/server.ts';

/** workspace/create's answer (the fields read here). */
interface WorkspaceAnswer {
  id: string;
  name: string;
  owner: unknown;
  authToken: string;
  plan: string;
  apiKeyList: Record<string, { id: string }>;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    rateLimits: { workspaceCreatePerIp: { max: 1000, windowMs: 60_000 }, workspaceCreatePerEmail: { max: 1000, windowMs: 60_000 } },
  });
});
afterAll(() => t.close());

describe('/v2/workspace/create', () => {
  it('creates a free workspace with a default testing key named after the owner', async () => {
    const ownerEmail = uniqueEmail('alice');
    const res = await t.callPublic('/v2/workspace/create', { ownerEmail, name: 'Alice', avatar: 'https://example.com/a.png' });
    expect(res.status).toBe(200);
    expect(resultOf(res).status).toBe('success');
    expect(resultOf(res).message).toBe('Workspace created successfully');
    const data = dataOf<WorkspaceAnswer>(res);
    expect(data.id).toMatch(/^workspace_/);
    expect(data.name).toBe('Alice workspace');
    expect(data.owner).toEqual({ email: ownerEmail, id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'Alice', avatar: 'https://example.com/a.png' });
    expect(data.authToken).toMatch(/^[0-9a-f]{32}$/);
    const keys = Object.values(data.apiKeyList);
    expect(keys).toHaveLength(1);
    const localPart = ownerEmail.slice(0, ownerEmail.indexOf('@'));
    expect(keys[0]).toEqual({ apiKeyName: `${localPart.charAt(0).toUpperCase()}${localPart.slice(1)} Test API Key`, id: expect.any(String), type: 'testing' });
    expect(data.plan).toBe('free');

    // The new workspace's credentials work, and its key has a Default Auth Token usable on set B.
    const tokens = await call(
      t.url,
      '/v2/workspace/authtokens/get',
      { apiKey: keys[0]!.id },
      workspaceHeaders({ workspaceId: data.id, workspaceAuthToken: data.authToken }),
    );
    expect(dataOf<{ authTokens: unknown[] }>(tokens).authTokens).toEqual([{ token: expect.any(String), name: 'Default Auth Token', domains: [] }]);
  });

  it('names the workspace after the e-mail when no name is given, or as asked', async () => {
    const ownerEmail = uniqueEmail();
    const plain = await t.callPublic('/v2/workspace/create', { ownerEmail });
    expect(dataOf<WorkspaceAnswer>(plain).name).toBe(`${ownerEmail} workspace`);
    const named = await t.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail(), workspaceName: 'Design team' });
    expect(dataOf<WorkspaceAnswer>(named).name).toBe('Design team');
  });

  it('validates the input, naming the field', async () => {
    expect((await t.callPublic('/v2/workspace/create', {})).body).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'ownerEmail is required.' } });
    expect(errorOf(await t.callPublic('/v2/workspace/create', { ownerEmail: 'not-an-email' })).message).toBe('ownerEmail must be a valid email address.');
    expect(errorOf(await t.callPublic('/v2/workspace/create', { ownerEmail: 7 })).message).toBe('ownerEmail must be a string, not a number.');
    const long = await t.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail(), name: 'n'.repeat(201) });
    expect(long.status).toBe(400);
    expect(errorOf(long).message).toBe('name must be at most 200 characters long.');
  });

  it('refuses disposable e-mail domains', async () => {
    for (const ownerEmail of ['someone@mailinator.com', 'someone@sub.33mail.com']) {
      const res = await t.callPublic('/v2/workspace/create', { ownerEmail });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'This email domain is not supported.' });
    }
  });

  it('needs a paid root workspace for a second workspace, refuses a duplicate name, and stops at 5', async () => {
    const ownerEmail = uniqueEmail('multi');
    const root = await createWorkspace(t, ownerEmail);
    const second = await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Second' });
    expect(second.status).toBe(403);
    expect(errorOf(second)).toEqual({
      status: 'PERMISSION_DENIED',
      message: 'Creating an additional workspace requires your root workspace to be on a paid plan (a production API key).',
    });

    await updateWorkspaceSettings(t.server.app, t.server.app.storage.workspaces.scopeOf({ id: root.workspaceId }), { plan: 'paid' });
    expect((await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Second' })).status).toBe(200);
    const duplicate = await t.callPublic('/v2/workspace/create', { ownerEmail: ownerEmail.toUpperCase(), workspaceName: 'Second' });
    expect(duplicate.status).toBe(409);
    expect(errorOf(duplicate)).toEqual({ status: 'ALREADY_EXISTS', message: 'A workspace already exists for this email address' });

    for (const name of ['Third', 'Fourth', 'Fifth']) {
      expect((await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: name })).status).toBe(200);
    }
    const sixth = await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Sixth' });
    expect(sixth.status).toBe(429);
    expect(errorOf(sixth)).toEqual({
      status: 'RESOURCE_EXHAUSTED',
      message: 'You have reached the maximum number of workspaces allowed for this email address.',
    });
  });
});

describe('/v2/workspace/create rate limits', () => {
  it('limits creations per client address', async () => {
    const limited = await startTestServer({ rateLimits: { workspaceCreatePerIp: { max: 2, windowMs: 60_000 } } });
    try {
      expect((await limited.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail() })).status).toBe(200);
      expect((await limited.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail() })).status).toBe(200);
      const third = await limited.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail() });
      expect(third.status).toBe(429);
      expect(errorOf(third)).toEqual({ status: 'RESOURCE_EXHAUSTED', message: 'Rate limit exceeded for this endpoint. Try again later.' });
    } finally {
      await limited.close();
    }
  });

  it('limits creations per e-mail address', async () => {
    const limited = await startTestServer({ rateLimits: { workspaceCreatePerEmail: { max: 1, windowMs: 60_000 } } });
    try {
      const ownerEmail = uniqueEmail();
      expect((await limited.callPublic('/v2/workspace/create', { ownerEmail })).status).toBe(200);
      const again = await limited.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Other' });
      expect(again.status).toBe(429);
      // another address is not affected
      expect((await limited.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail() })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
