import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/update';
let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  id = dataOf<EndpointAnswer>(
    await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a', description: 'first', filterTypes: ['comment.add'] }),
  ).id;
});
afterAll(() => t.close());

describe(PATH, () => {
  it('changes only the given fields', async () => {
    const res = await t.callK(PATH, { endpointId: id, url: 'https://hooks.example.com/b', rateLimit: 5, metadata: { a: 'b' } });
    expect(resultOf(res).message).toBe('Advanced webhook endpoint updated successfully.');
    expect(dataOf<EndpointAnswer>(res)).toMatchObject({
      id,
      url: 'https://hooks.example.com/b',
      description: 'first',
      filterTypes: ['comment.add'],
      rateLimit: 5,
      metadata: { a: 'b' },
      disabled: false,
    });
    const cleared = await t.callK(PATH, { endpointId: id, filterTypes: null, rateLimit: null, disabled: true });
    expect(dataOf<EndpointAnswer>(cleared)).toMatchObject({ filterTypes: null, rateLimit: null, disabled: true, disabledReason: null });
    const stored = await t.callK('/v2/workspace/advancedwebhook/endpoints/get', { endpointId: id });
    expect(dataOf<{ endpoints: EndpointAnswer[] }>(stored).endpoints[0]).toEqual(dataOf<EndpointAnswer>(cleared));
  });

  it('needs a field besides endpointId, a known endpoint and valid values', async () => {
    expect(errorOf(await t.callK(PATH, { endpointId: id }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one endpoint field besides endpointId must be provided.',
    });
    expect(errorOf(await t.callK(PATH, { endpointId: 'ep_nope', description: 'x' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
    expect(errorOf(await t.callK(PATH, { endpointId: id, url: 'mailto:a@b.c' })).message).toBe('url must be a valid http(s) URL.');
    expect(errorOf(await t.callK(PATH, { endpointId: id, filterTypes: ['nope'] })).status).toBe('INVALID_ARGUMENT');
  });

  it('is refused while advanced webhooks are disabled', async () => {
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false });
    expect(errorOf(await t.callK(PATH, { endpointId: id, description: 'x' })).status).toBe('FAILED_PRECONDITION');
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  });
});
