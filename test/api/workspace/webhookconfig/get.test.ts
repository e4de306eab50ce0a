import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

const PATH = '/v2/workspace/webhookconfig/get';

/** webhookconfig/get's answer (the fields read here). */
interface WebhookConfig {
  useWebhookService: boolean;
  webhookServiceConfig: { triggers: Record<string, boolean> };
}
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe(PATH, () => {
  it('gives the basic service off with the documented default triggers', async () => {
    const res = await t.callK(PATH, {});
    expect(resultOf(res).message).toBe('Webhook configuration retrieved successfully.');
    const data = dataOf<WebhookConfig>(res);
    expect(data.useWebhookService).toBe(false);
    expect(data.webhookServiceConfig).toMatchObject({
      rawNotificationUrl: '',
      processedNotificationUrl: '',
      authTokenConfigured: false,
      encodeData: false,
      encryptData: false,
      publicKey: '',
      enableDataProtection: false,
    });
    // reference.md 4.6: comments and huddles on; CRDT, recorder and suggestions off
    expect(data.webhookServiceConfig.triggers).toMatchObject({
      'comment.add': true,
      'comment_annotation.add': true,
      'huddle.create': true,
      'crdt.update_data': false,
      'recorder.done': false,
      'comment_annotation.suggestion_accept': false,
    });
  });

  it('shows what a key was created with, the token only as a flag', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', {
      ownerEmail: 'o@example.com',
      type: 'testing',
      useWebhookService: true,
      webhookServiceConfig: { authToken: 'basic-secret', rawNotificationUrl: 'https://hooks.example.com/raw' },
    });
    const apiKey = dataOf<{ apiKey: string }>(created).apiKey;
    const tokens = await t.callW('/v2/workspace/authtokens/get', { apiKey });
    const res = await t.callK(
      PATH,
      {},
      { 'x-svc-api-key': apiKey, 'x-svc-auth-token': dataOf<{ authTokens: { token: string }[] }>(tokens).authTokens[0]!.token },
    );
    expect(dataOf<WebhookConfig>(res)).toMatchObject({
      useWebhookService: true,
      webhookServiceConfig: { rawNotificationUrl: 'https://hooks.example.com/raw', authTokenConfigured: true },
    });
    expect(JSON.stringify(res.body)).not.toContain('basic-secret');
  });
});
