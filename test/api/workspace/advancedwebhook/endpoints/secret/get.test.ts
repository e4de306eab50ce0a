import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/secret/get';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
});
afterAll(() => t.close());

describe(PATH, () => {
  it("returns the endpoint's secret, the same after a restart, and one per endpoint", async () => {
    const a = (await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a' })).body.result.data.id;
    const b = (await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/b' })).body.result.data.id;
    const res = await t.callK(PATH, { endpointId: a });
    expect(res.body.result.message).toBe('Advanced webhook endpoint secret retrieved successfully.');
    expect(res.body.result.data).toEqual({ endpointId: a, secret: expect.stringMatching(/^whsec_/) });
    expect((await t.callK(PATH, { endpointId: b })).body.result.data.secret).not.toBe(res.body.result.data.secret);
    await t.restart();
    expect((await t.callK(PATH, { endpointId: a })).body.result.data.secret).toBe(res.body.result.data.secret);
  });

  it('answers NOT_FOUND for an unknown endpoint', async () => {
    expect((await t.callK(PATH, { endpointId: 'ep_unknown' })).body.error).toEqual({
      status: 'NOT_FOUND',
      message: 'Advanced webhook provider request failed.',
    });
  });
});
