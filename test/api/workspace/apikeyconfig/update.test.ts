import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiProviderSecretName, getSecret } from '../../../../server/services/apikeys.ts';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, pgTablesHolding, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';
import { sqliteEngineOf } from '../../../../server/db/repos/index.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const path = '/v2/workspace/apikeyconfig/update';

/** The key's settings as apikeyconfig/get and /update answer them (the fields read here). */
interface KeyConfig {
  requireAutoOrgUser: boolean;
  aiModelApiKey: unknown[];
}

describe('/v2/workspace/apikeyconfig/update', () => {
  it('updates only the fields sent', async () => {
    const res = await t.callK(path, { enablePrivateComments: true, defaultDocumentAccessType: 'restricted' });
    expect(res.status).toBe(200);
    expect(resultOf(res).message).toBe('API key configuration updated successfully.');
    expect(dataOf<KeyConfig>(res)).toMatchObject({ enablePrivateComments: true, defaultDocumentAccessType: 'restricted', requireJwtToken: false });
    const second = await t.callK(path, { requireJwtToken: true, requireAutoOrgUser: true });
    expect(dataOf<KeyConfig>(second)).toMatchObject({
      enablePrivateComments: true,
      requireJwtToken: true,
      requireAutoOrgUser: true,
      defaultDocumentAccessType: 'restricted',
    });
    expect(dataOf<KeyConfig>(await t.callK('/v2/workspace/apikeyconfig/get', {}))).toMatchObject({ enablePrivateComments: true, requireJwtToken: true });
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
    expect(dataOf<KeyConfig>(res).aiModelApiKey).toEqual([
      { provider: 'openai', configured: true, baseUrl: 'http://127.0.0.1:11434/v1' },
      { provider: 'anthropic', configured: true, baseUrl: null },
    ]);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    // the server can still read it for its own provider calls
    const scope = await t.server.app.storage.keys.scopeFor(t.credentials.apiKey);
    expect(scope && (await getSecret(t.server.app, scope, aiProviderSecretName('openai')))).toBe(secret);
    if (t.server.app.storage.engine.kind === 'postgres') {
      // no row of the database holds it in the clear (the scan does find the key's stored provider settings)
      expect(await pgTablesHolding(t, secret)).toEqual([]);
      expect(await pgTablesHolding(t, 'http://127.0.0.1:11434/v1')).not.toEqual([]);
    } else {
      sqliteEngineOf(t.server.app.storage).main.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      expect(readFileSync(join(t.dataDir, 'hearth.db')).includes(secret)).toBe(false);
    }

    // an empty key removes it
    const removed = await t.callK(path, { aiModelApiKey: [{ provider: 'anthropic', customerApiKey: '' }] });
    expect(dataOf<KeyConfig>(removed).aiModelApiKey).toEqual([{ provider: 'openai', configured: true, baseUrl: 'http://127.0.0.1:11434/v1' }]);
  });

  it('validates the input', async () => {
    expect(errorOf(await t.callK(path, {}))).toEqual({ status: 'INVALID_ARGUMENT', message: 'At least one field must be provided for update' });
    expect(errorOf(await t.callK(path, { defaultDocumentAccessType: 'secret' })).message).toBe(
      'defaultDocumentAccessType must be one of: public, restricted, organizationPrivate.',
    );
    expect(errorOf(await t.callK(path, { aiModelApiKey: [{ provider: 'mistral', customerApiKey: 'x' }] })).message).toBe(
      'aiModelApiKey[0].provider must be one of: openai, anthropic, gemini.',
    );
    expect(errorOf(await t.callK(path, { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'x', baseUrl: 'file:///etc' }] })).message).toBe(
      'aiModelApiKey[0].baseUrl must be an http or https URL.',
    );
    expect(
      errorOf(
        await t.callK(path, {
          aiModelApiKey: [
            { provider: 'openai', customerApiKey: 'a' },
            { provider: 'openai', customerApiKey: 'b' },
          ],
        }),
      ).message,
    ).toBe('aiModelApiKey lists a provider more than once.');
    expect((await t.callK(path, { enablePrivateComments: 'true' })).status).toBe(400);
  });

  it("changes only the calling key's configuration", async () => {
    const other = await createWorkspace(t);
    await t.callK(path, { requireAutoOrgUser: true });
    const theirs = await t.callPublic('/v2/workspace/apikeyconfig/get', {}, other.headersK);
    expect(dataOf<KeyConfig>(theirs).requireAutoOrgUser).toBe(false);
    expect(dataOf<KeyConfig>(theirs).aiModelApiKey).toEqual([]);
  });
});
