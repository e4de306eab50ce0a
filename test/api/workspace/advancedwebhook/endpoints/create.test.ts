import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/create';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
});
afterAll(() => t.close());

describe(PATH, () => {
  it('creates an endpoint with a generated secret and the reference shape', async () => {
    const res = await t.callK(PATH, {
      url: 'https://hooks.example.com/in',
      description: 'CI',
      filterTypes: ['comment.add', 'comment.add', 'crdt.update_data'],
      metadata: { team: 'web' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('Advanced webhook endpoint created successfully.');
    const data = res.body.result.data;
    expect(data).toEqual({
      id: expect.stringMatching(/^ep_[A-Za-z0-9_-]{27}$/),
      url: 'https://hooks.example.com/in',
      description: 'CI',
      filterTypes: ['comment.add', 'crdt.update_data'],
      channels: null,
      disabled: false,
      disabledReason: null,
      rateLimit: null,
      uid: null,
      metadata: { team: 'web' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: data.createdAt,
    });
    const secret = await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: data.id });
    expect(secret.body.result.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it('refuses bad urls, unknown event types, empty lists and a taken uid', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'javascript:alert(1)']) {
      const res = await t.callK(PATH, { url });
      expect(res.body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'url must be a valid http(s) URL.' });
    }
    const unknown = await t.callK(PATH, { url: 'http://localhost:1/x', filterTypes: ['comment.explode'] });
    expect(unknown.body.error.status).toBe('INVALID_ARGUMENT');
    expect(unknown.body.error.message).toContain('filterTypes');
    expect((await t.callK(PATH, { url: 'http://localhost:1/x', filterTypes: [] })).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await t.callK(PATH, { url: 'http://localhost:1/x', channels: [] })).body.error.status).toBe('INVALID_ARGUMENT');
    // a positive integer: 0 is refused as "greater than 0" (not "at least 0")
    expect((await t.callK(PATH, { url: 'http://localhost:1/x', rateLimit: 0 })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'rateLimit must be greater than 0.',
    });
    expect((await t.callK(PATH, {})).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await t.callK(PATH, { url: 'http://localhost:1/x', uid: 'one' })).status).toBe(200);
    const taken = await t.callK(PATH, { url: 'http://localhost:1/y', uid: 'one' });
    expect(taken.body.error).toEqual({ status: 'ALREADY_EXISTS', message: 'An endpoint with this uid already exists.' });
  });

  it('needs advanced webhooks enabled', async () => {
    const k = await createWorkspace(t);
    const res = await t.callK(PATH, { url: 'https://hooks.example.com/in' }, k.headersK);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
  });
});
