import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../../../helpers/server.ts';
import type { EndpointAnswer } from '../../../../../helpers/webhooks.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/secret/get';

/** secret/get's answer. */
interface EndpointSecret {
  endpointId: string;
  secret: string;
}
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
});
afterAll(() => t.close());

describe(PATH, () => {
  it("returns the endpoint's secret, the same after a restart, and one per endpoint", async () => {
    const a = dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a' })).id;
    const b = dataOf<EndpointAnswer>(await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/b' })).id;
    const res = await t.callK(PATH, { endpointId: a });
    expect(resultOf(res).message).toBe('Advanced webhook endpoint secret retrieved successfully.');
    expect(dataOf<EndpointSecret>(res)).toEqual({ endpointId: a, secret: expect.stringMatching(/^whsec_/) });
    expect(dataOf<EndpointSecret>(await t.callK(PATH, { endpointId: b })).secret).not.toBe(dataOf<EndpointSecret>(res).secret);
    await t.restart();
    expect(dataOf<EndpointSecret>(await t.callK(PATH, { endpointId: a })).secret).toBe(dataOf<EndpointSecret>(res).secret);
  });

  it('answers NOT_FOUND for an unknown endpoint', async () => {
    expect(errorOf(await t.callK(PATH, { endpointId: 'ep_unknown' }))).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
  });
});
