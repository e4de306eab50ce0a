import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateWorkspaceSettings } from '../../../server/services/workspaces.ts';
import { createWorkspace, uniqueEmail } from '../../helpers/factories.ts';
import { call, startTestServer, workspaceHeaders, type TestServer } from '../../helpers/server.ts';

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
    expect(res.body.result.status).toBe('success');
    expect(res.body.result.message).toBe('Workspace created successfully');
    const data = res.body.result.data;
    expect(data.id).toMatch(/^workspace_/);
    expect(data.name).toBe('Alice workspace');
    expect(data.owner).toEqual({ email: ownerEmail, id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'Alice', avatar: 'https://example.com/a.png' });
    expect(data.authToken).toMatch(/^[0-9a-f]{32}$/);
    const keys = Object.values(data.apiKeyList) as any[];
    expect(keys).toHaveLength(1);
    const localPart = ownerEmail.slice(0, ownerEmail.indexOf('@'));
    expect(keys[0]).toEqual({ apiKeyName: `${localPart.charAt(0).toUpperCase()}${localPart.slice(1)} Test API Key`, id: expect.any(String), type: 'testing' });
    expect(data.plan).toBe('free');

    // The new workspace's credentials work, and its key has a Default Auth Token usable on set B.
    const tokens = await call(
      t.url,
      '/v2/workspace/authtokens/get',
      { apiKey: keys[0].id },
      workspaceHeaders({ workspaceId: data.id, workspaceAuthToken: data.authToken }),
    );
    expect(tokens.body.result.data.authTokens).toEqual([{ token: expect.any(String), name: 'Default Auth Token', domains: [] }]);
  });

  it('names the workspace after the e-mail when no name is given, or as asked', async () => {
    const ownerEmail = uniqueEmail();
    const plain = await t.callPublic('/v2/workspace/create', { ownerEmail });
    expect(plain.body.result.data.name).toBe(`${ownerEmail} workspace`);
    const named = await t.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail(), workspaceName: 'Design team' });
    expect(named.body.result.data.name).toBe('Design team');
  });

  it('validates the input, naming the field', async () => {
    expect((await t.callPublic('/v2/workspace/create', {})).body).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'ownerEmail is required.' } });
    expect((await t.callPublic('/v2/workspace/create', { ownerEmail: 'not-an-email' })).body.error.message).toBe('ownerEmail must be a valid email address.');
    expect((await t.callPublic('/v2/workspace/create', { ownerEmail: 7 })).body.error.message).toBe('ownerEmail must be a string, not a number.');
    const long = await t.callPublic('/v2/workspace/create', { ownerEmail: uniqueEmail(), name: 'n'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe('name must be at most 200 characters long.');
  });

  it('refuses disposable e-mail domains', async () => {
    for (const ownerEmail of ['someone@mailinator.com', 'someone@sub.33mail.com']) {
      const res = await t.callPublic('/v2/workspace/create', { ownerEmail });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'This email domain is not supported.' });
    }
  });

  it('needs a paid root workspace for a second workspace, refuses a duplicate name, and stops at 5', async () => {
    const ownerEmail = uniqueEmail('multi');
    const root = await createWorkspace(t, ownerEmail);
    const second = await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Second' });
    expect(second.status).toBe(403);
    expect(second.body.error).toEqual({
      status: 'PERMISSION_DENIED',
      message: 'Creating an additional workspace requires your root workspace to be on a paid plan (a production API key).',
    });

    await updateWorkspaceSettings(t.server.app, t.server.app.storage.workspaces.scopeOf({ id: root.workspaceId }), { plan: 'paid' });
    expect((await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Second' })).status).toBe(200);
    const duplicate = await t.callPublic('/v2/workspace/create', { ownerEmail: ownerEmail.toUpperCase(), workspaceName: 'Second' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toEqual({ status: 'ALREADY_EXISTS', message: 'A workspace already exists for this email address' });

    for (const name of ['Third', 'Fourth', 'Fifth']) {
      expect((await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: name })).status).toBe(200);
    }
    const sixth = await t.callPublic('/v2/workspace/create', { ownerEmail, workspaceName: 'Sixth' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toEqual({
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
      expect(third.body.error).toEqual({ status: 'RESOURCE_EXHAUSTED', message: 'Rate limit exceeded for this endpoint. Try again later.' });
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
