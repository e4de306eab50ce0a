import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/secret/rotate';

/** secret/get and secret/rotate answer the endpoint's secret (rotate also when the previous one expires). */
interface EndpointSecret {
  endpointId: string;
  secret: string;
}
let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  id = dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a' })).id;
});
afterAll(() => t.close());

const secretOf = async () => dataOf<EndpointSecret>(await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).secret;

describe(PATH, () => {
  it('generates a new secret, or takes a given one', async () => {
    const before = await secretOf();
    const res = await t.callK(PATH, { endpointId: id });
    expect(resultOf(res).message).toBe('Advanced webhook endpoint secret rotated successfully.');
    expect(dataOf<EndpointSecret>(res)).toEqual({ endpointId: id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect(dataOf<EndpointSecret>(res).secret).not.toBe(before);
    expect(await secretOf()).toBe(dataOf<EndpointSecret>(res).secret);
    const mine = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(dataOf<EndpointSecret>(await t.callK(PATH, { endpointId: id, key: mine })).secret).toBe(mine);
    expect(await secretOf()).toBe(mine);
  });

  it('refuses a malformed key and an unknown endpoint', async () => {
    expect(errorOf(await t.callK(PATH, { endpointId: id, key: 'plain' })).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(await t.callK(PATH, { endpointId: 'ep_x' })).status).toBe('NOT_FOUND');
  });
});
