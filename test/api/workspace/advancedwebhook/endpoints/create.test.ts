import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../helpers/webhooks.ts';

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
    expect(resultOf(res).message).toBe('Advanced webhook endpoint created successfully.');
    const data = dataOf<EndpointAnswer>(res);
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
    expect(dataOf<{ secret: string }>(secret).secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it('refuses bad urls, unknown event types, empty lists and a taken uid', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'javascript:alert(1)']) {
      const res = await t.callK(PATH, { url });
      expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'url must be a valid http(s) URL.' });
    }
    const unknown = await t.callK(PATH, { url: 'http://localhost:1/x', filterTypes: ['comment.explode'] });
    expect(errorOf(unknown).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(unknown).message).toContain('filterTypes');
    expect(errorOf(await t.callK(PATH, { url: 'http://localhost:1/x', filterTypes: [] })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK(PATH, { url: 'http://localhost:1/x', channels: [] })).status).toBe('INVALID_ARGUMENT');
    // a positive integer: 0 is refused as "greater than 0" (not "at least 0")
    expect(errorOf(await t.callK(PATH, { url: 'http://localhost:1/x', rateLimit: 0 }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'rateLimit must be greater than 0.',
    });
    expect(errorOf(await t.callK(PATH, {})).status).toBe('INVALID_ARGUMENT');
    expect((await t.callK(PATH, { url: 'http://localhost:1/x', uid: 'one' })).status).toBe(200);
    const taken = await t.callK(PATH, { url: 'http://localhost:1/y', uid: 'one' });
    expect(errorOf(taken)).toEqual({ status: 'ALREADY_EXISTS', message: 'An endpoint with this uid already exists.' });
  });

  it('needs advanced webhooks enabled', async () => {
    const k = await createWorkspace(t);
    const res = await t.callK(PATH, { url: 'https://hooks.example.com/in' }, k.headersK);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({
      status: 'FAILED_PRECONDITION',
      message: 'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
  });
});
