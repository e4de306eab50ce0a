import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhookconfig/get';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe(PATH, () => {
  it('gives the defaults when never configured, then what was stored', async () => {
    const before = await t.callK(PATH, {});
    expect(resultOf(before)).toEqual({
      status: 'success',
      message: 'Advanced webhook configuration retrieved successfully.',
      data: { isEnabled: false, encryptData: false, encodeData: false, publicKey: '', enableDataProtection: false },
    });
    await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true, enableDataProtection: true });
    await t.restart();
    expect(dataOf<unknown>(await t.callK(PATH, {}))).toEqual({
      isEnabled: true,
      encryptData: false,
      encodeData: false,
      publicKey: '',
      enableDataProtection: true,
    });
  });

  it('needs the API key headers', async () => {
    const res = await t.callPublic(PATH, {});
    expect(errorOf(res).status).toBe('INVALID_ARGUMENT');
    const wrong = await t.callK(PATH, {}, { 'x-svc-auth-token': 'wrong' });
    expect(errorOf(wrong).status).toBe('PERMISSION_DENIED');
  });
});
