import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/update';
let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  id = (
    await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a', description: 'first', filterTypes: ['comment.add'] })
  ).body.result.data.id;
});
afterAll(() => t.close());

describe(PATH, () => {
  it('changes only the given fields', async () => {
    const res = await t.callK(PATH, { endpointId: id, url: 'https://hooks.example.com/b', rateLimit: 5, metadata: { a: 'b' } });
    expect(res.body.result.message).toBe('Advanced webhook endpoint updated successfully.');
    expect(res.body.result.data).toMatchObject({
      id,
      url: 'https://hooks.example.com/b',
      description: 'first',
      filterTypes: ['comment.add'],
      rateLimit: 5,
      metadata: { a: 'b' },
      disabled: false,
    });
    const cleared = await t.callK(PATH, { endpointId: id, filterTypes: null, rateLimit: null, disabled: true });
    expect(cleared.body.result.data).toMatchObject({ filterTypes: null, rateLimit: null, disabled: true, disabledReason: null });
    const stored = await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id });
    expect(stored.body.result.data.endpoints[0]).toEqual(cleared.body.result.data);
  });

  it('needs a field besides endpointId, a known endpoint and valid values', async () => {
    expect((await t.callK(PATH, { endpointId: id })).body.error).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one endpoint field besides endpointId must be provided.',
    });
    expect((await t.callK(PATH, { endpointId: 'ep_nope', description: 'x' })).body.error).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
    expect((await t.callK(PATH, { endpointId: id, url: 'mailto:a@b.c' })).body.error.message).toBe('url must be a valid http(s) URL.');
    expect((await t.callK(PATH, { endpointId: id, filterTypes: ['nope'] })).body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('is refused while advanced webhooks are disabled', async () => {
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false });
    expect((await t.callK(PATH, { endpointId: id, description: 'x' })).body.error.status).toBe('FAILED_PRECONDITION');
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  });
});
