import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/workspace/advancedwebhookconfig/update';

/** The advanced webhook configuration advancedwebhookconfig/get and /update answer (the field read here). */
interface AdvancedWebhookConfig {
  publicKey: string;
}
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const spki = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

describe(PATH, () => {
  it('refuses a first configuration that does not enable, then enables and updates partially', async () => {
    const k = await createWorkspace(t);
    const first = await t.callK(PATH, { encodeData: true }, k.headersK);
    expect(first.status).toBe(400);
    expect(errorOf(first)).toEqual({
      status: 'FAILED_PRECONDITION',
      message:
        'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.',
    });
    const off = await t.callK(PATH, { isEnabled: false }, k.headersK);
    expect(errorOf(off).status).toBe('FAILED_PRECONDITION');

    const enabled = await t.callK(PATH, { isEnabled: true }, k.headersK);
    expect(enabled.status).toBe(200);
    expect(resultOf(enabled)).toEqual({
      status: 'success',
      message: 'Advanced webhook configuration updated successfully.',
      data: { isEnabled: true, encryptData: false, encodeData: false, publicKey: '', enableDataProtection: false },
    });
    const partial = await t.callK(PATH, { encodeData: true }, k.headersK);
    expect(dataOf<AdvancedWebhookConfig>(partial)).toEqual({
      isEnabled: true,
      encryptData: false,
      encodeData: true,
      publicKey: '',
      enableDataProtection: false,
    });
    // once configured, disabling and re-enabling is allowed
    expect(dataOf<AdvancedWebhookConfig>(await t.callK(PATH, { isEnabled: false }, k.headersK))).toMatchObject({ isEnabled: false, encodeData: true });
  });

  it('requires at least one field', async () => {
    const res = await t.callK(PATH, {});
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'At least one of isEnabled, encryptData, encodeData, publicKey or enableDataProtection must be provided.',
    });
  });

  it('stores an SPKI or PKCS#1 public key as its base64 body and refuses anything else', async () => {
    await t.callK(PATH, { isEnabled: true });
    for (const pem of [spki, pkcs1]) {
      const res = await t.callK(PATH, { publicKey: pem });
      expect(dataOf<AdvancedWebhookConfig>(res).publicKey).toBe(body(pem));
      expect(dataOf<AdvancedWebhookConfig>(await t.callK(PATH, { publicKey: body(pem) })).publicKey).toBe(body(pem));
    }
    for (const bad of ['not a key', 'AAAA', body(spki).slice(0, 100)]) {
      const res = await t.callK(PATH, { publicKey: bad });
      expect(res.status).toBe(400);
      expect(errorOf(res).message).toMatch(/^publicKey must be an RSA public key/);
    }
    expect(dataOf<AdvancedWebhookConfig>(await t.callK(PATH, { publicKey: '' })).publicKey).toBe('');
  });

  it('refuses encryptData without a public key, and wrong types', async () => {
    await t.callK(PATH, { isEnabled: true, publicKey: '' });
    const res = await t.callK(PATH, { encryptData: true });
    expect(errorOf(res)).toEqual({ status: 'INVALID_ARGUMENT', message: 'encryptData requires a publicKey: the base64 body of an RSA public key.' });
    expect(dataOf<AdvancedWebhookConfig>(await t.callK(PATH, { encryptData: true, publicKey: body(spki) }))).toMatchObject({ encryptData: true });
    const wrong = await t.callK(PATH, { isEnabled: 'yes' });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong).status).toBe('INVALID_ARGUMENT');
    expect(errorOf(wrong).message).toContain('isEnabled');
  });

  it("changes only the calling key's configuration", async () => {
    const a = await createWorkspace(t);
    const b = await createWorkspace(t);
    await t.callK(PATH, { isEnabled: true, encodeData: true }, a.headersK);
    const other = await t.callK('/v2/workspace/advancedwebhookconfig/get', {}, b.headersK);
    expect(dataOf<AdvancedWebhookConfig>(other)).toEqual({
      isEnabled: false,
      encryptData: false,
      encodeData: false,
      publicKey: '',
      enableDataProtection: false,
    });
  });
});
