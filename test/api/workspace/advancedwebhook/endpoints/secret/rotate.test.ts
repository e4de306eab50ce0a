import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhook/endpoints/secret/rotate';
let t: TestServer;
let id: string;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
  id = (await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a' })).body.result.data.id;
});
afterAll(() => t.close());

const secretOf = async () => (await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).body.result.data.secret;

describe(PATH, () => {
  it('generates a new secret, or takes a given one', async () => {
    const before = await secretOf();
    const res = await t.callK(PATH, { endpointId: id });
    expect(res.body.result.message).toBe('Advanced webhook endpoint secret rotated successfully.');
    expect(res.body.result.data).toEqual({ endpointId: id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect(res.body.result.data.secret).not.toBe(before);
    expect(await secretOf()).toBe(res.body.result.data.secret);
    const mine = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect((await t.callK(PATH, { endpointId: id, key: mine })).body.result.data.secret).toBe(mine);
    expect(await secretOf()).toBe(mine);
  });

  it('refuses a malformed key and an unknown endpoint', async () => {
    expect((await t.callK(PATH, { endpointId: id, key: 'plain' })).body.error.status).toBe('INVALID_ARGUMENT');
    expect((await t.callK(PATH, { endpointId: 'ep_x' })).body.error.status).toBe('NOT_FOUND');
  });
});
