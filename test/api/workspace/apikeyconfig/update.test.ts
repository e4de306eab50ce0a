import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiProviderSecretName, getSecret } from '../../../../server/services/apikeys.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/apikeyconfig/update';

describe('/v2/workspace/apikeyconfig/update', () => {
  it('updates only the fields sent', async () => {
    const res = await t.callK(path, { enablePrivateComments: true, defaultDocumentAccessType: 'restricted' });
    expect(res.status).toBe(200);
    expect(res.body.result.message).toBe('API key configuration updated successfully.');
    expect(res.body.result.data).toMatchObject({ enablePrivateComments: true, defaultDocumentAccessType: 'restricted', requireJwtToken: false });
    const second = await t.callK(path, { requireJwtToken: true, requireAutoOrgUser: true });
    expect(second.body.result.data).toMatchObject({
      enablePrivateComments: true,
      requireJwtToken: true,
      requireAutoOrgUser: true,
      defaultDocumentAccessType: 'restricted',
    });
    expect((await t.callK('/v2/workspace/apikeyconfig/get', {})).body.result.data).toMatchObject({ enablePrivateComments: true, requireJwtToken: true });
  });

  it('stores AI provider keys encrypted and never returns them', async () => {
    const secret = 'sk-test-provider-key-0123456789';
    const res = await t.callK(path, {
      aiModelApiKey: [
        { provider: 'openai', customerApiKey: secret, baseUrl: 'http://127.0.0.1:11434/v1' },
        { provider: 'anthropic', customerApiKey: 'sk-ant-zzz' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data.aiModelApiKey).toEqual([
      { provider: 'openai', configured: true, baseUrl: 'http://127.0.0.1:11434/v1' },
      { provider: 'anthropic', configured: true, baseUrl: null },
    ]);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    // the server can still read it for its own provider calls
    const scope = await t.server.app.storage.keys.scopeFor(t.credentials.apiKey);
    expect(scope && (await getSecret(t.server.app, scope, aiProviderSecretName('openai')))).toBe(secret);
    t.server.app.storage.engine.main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(t.dataDir, 'hearth.db')).includes(secret)).toBe(false);

    // an empty key removes it
    const removed = await t.callK(path, { aiModelApiKey: [{ provider: 'anthropic', customerApiKey: '' }] });
    expect(removed.body.result.data.aiModelApiKey).toEqual([{ provider: 'openai', configured: true, baseUrl: 'http://127.0.0.1:11434/v1' }]);
  });

  it('validates the input', async () => {
    expect((await t.callK(path, {})).body.error).toEqual({ status: 'INVALID_ARGUMENT', message: 'At least one field must be provided for update' });
    expect((await t.callK(path, { defaultDocumentAccessType: 'secret' })).body.error.message).toBe(
      'defaultDocumentAccessType must be one of: public, restricted, organizationPrivate.',
    );
    expect((await t.callK(path, { aiModelApiKey: [{ provider: 'mistral', customerApiKey: 'x' }] })).body.error.message).toBe(
      'aiModelApiKey[0].provider must be one of: openai, anthropic, gemini.',
    );
    expect((await t.callK(path, { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'x', baseUrl: 'file:///etc' }] })).body.error.message).toBe(
      'aiModelApiKey[0].baseUrl must be an http or https URL.',
    );
    expect(
      (
        await t.callK(path, {
          aiModelApiKey: [
            { provider: 'openai', customerApiKey: 'a' },
            { provider: 'openai', customerApiKey: 'b' },
          ],
        })
      ).body.error.message,
    ).toBe('aiModelApiKey lists a provider more than once.');
    expect((await t.callK(path, { enablePrivateComments: 'true' })).status).toBe(400);
  });

  it("changes only the calling key's configuration", async () => {
    const other = await createWorkspace(t);
    await t.callK(path, { requireAutoOrgUser: true });
    const theirs = await t.callPublic('/v2/workspace/apikeyconfig/get', {}, other.headersK);
    expect(theirs.body.result.data.requireAutoOrgUser).toBe(false);
    expect(theirs.body.result.data.aiModelApiKey).toEqual([]);
  });
});
