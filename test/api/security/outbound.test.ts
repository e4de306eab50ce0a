import { afterAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../server/security/outbound.ts';
import { startProviders, type Providers } from '../../helpers/ai-providers.ts';
import { addAnnotation } from '../../helpers/comments.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { dataOf, errorOf, eventually, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../../helpers/webhooks.ts';

/** ask-ai answers the outcome itself: the model's text, or why there is none. */
interface AskAnswer {
  success: boolean;
  error?: string;
}

const servers: TestServer[] = [];
const peers: Array<Receiver | Providers> = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(peers.map((p) => p.close()));
});

async function server(outboundPrivate: 'allow' | 'deny') {
  const t = await startTestServer({ webhooks: FAST_WEBHOOKS, outboundPrivate });
  servers.push(t);
  return t;
}

const attemptsOf = async (t: TestServer, endpointId: string) =>
  dataOf<{ attempts: Array<{ response: string; responseStatusCode: number | null }> }>(
    await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId }),
  ).attempts;

describe('private addresses', () => {
  it('are told apart from public ones, IPv4-mapped and NAT64 forms included', () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.10',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::5',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '224.0.0.1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'not-an-ip']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe('OUTBOUND_PRIVATE=deny', () => {
  it('refuses webhook and AI targets on loopback, private and link-local addresses where they are configured', async () => {
    const t = await server('deny');
    expect((await t.callK('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true })).status).toBe(200);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://[::1]:9/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.7/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url });
      expect([url, res.status, errorOf(res).status]).toEqual([url, 400, 'INVALID_ARGUMENT']);
      expect(errorOf(res).message).toMatch(/^url: .*OUTBOUND_PRIVATE=deny/);
    }
    const ai = await t.callK('/v2/workspace/apikeyconfig/update', {
      aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-x', baseUrl: 'http://127.0.0.1:11434/v1' }],
    });
    expect(ai.status).toBe(400);
    expect(errorOf(ai).message).toMatch(/^aiModelApiKey\[0\]\.baseUrl: .*OUTBOUND_PRIVATE=deny/);
    const basic = await t.callK('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { rawNotificationUrl: 'http://192.168.1.1/raw' } });
    expect(basic.status).toBe(400);
    expect(errorOf(basic).message).toContain('webhookServiceConfig.rawNotificationUrl');
    // a public address is taken
    expect((await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://93.184.215.14/hook' })).status).toBe(200);
  });

  it('refuses at connection time too: a target taken under allow gets no delivery under deny, by address or by name', async () => {
    const receiver = await startReceiver();
    peers.push(receiver);
    const dataDir = (await server('allow')).dataDir;
    const t = servers.at(-1)!;
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
    const byAddress = await enableWithEndpoint(t, receiver.url);
    const byName = dataOf<{ id: string }>(
      await t.callK('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url.replace('127.0.0.1', 'localhost') }),
    ).id;
    await t.restart({ outboundPrivate: 'deny', dataDir });
    await t.server.app.webhooks.ready();
    await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
    for (const id of [byAddress.id, byName]) {
      const attempts = await eventually(async () => {
        const list = await attemptsOf(t, id);
        expect(list.length).toBeGreaterThan(0);
        return list;
      });
      expect(attempts[0]!.responseStatusCode ?? null).toBeNull();
      expect(attempts[0]!.response).toContain('OUTBOUND_PRIVATE=deny');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses an AI base URL taken under allow when the call is made', async () => {
    const providers = await startProviders();
    peers.push(providers);
    const t = await server('allow');
    await t.callK('/v2/workspace/apikeyconfig/update', {
      aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-x', baseUrl: providers.baseUrls.openai.replace('127.0.0.1', 'localhost') }],
    });
    expect(answerOf(await t.callK('/v2/rewriter/ask-ai', { model: 'gpt-4o', prompt: 'p', text: 't' }))).toMatchObject({ success: true });
    await t.restart({ outboundPrivate: 'deny' });
    const refused = await t.callK('/v2/rewriter/ask-ai', { model: 'gpt-4o', prompt: 'p', text: 't' });
    expect(answerOf<AskAnswer>(refused).success, JSON.stringify([t.server.config.outboundPrivate, refused.body, providers.received.length])).toBe(false);
    expect(answerOf<AskAnswer>(refused).error).toContain('OUTBOUND_PRIVATE=deny');
    expect(providers.received).toHaveLength(1);
  });
});

describe('what Hearth reads back from a target, whatever the setting', () => {
  it("keeps at most 1 KB of an attempt's answer and 200 characters of a provider's error", async () => {
    const big = 'internal-secret-'.repeat(1000);
    const receiver = await startReceiver({ fallback: { status: 500, body: big } });
    const providers = await startProviders(() => ({ status: 500, body: { error: { message: big } } }));
    peers.push(receiver, providers);
    const t = await server('allow');
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
    const endpoint = await enableWithEndpoint(t, receiver.url);
    await addAnnotation(t, { commentData: [{ commentText: 'hello', from: { userId: 'ann' } }] });
    const attempts = await eventually(async () => {
      const list = await attemptsOf(t, endpoint.id);
      expect(list.length).toBeGreaterThan(0);
      return list;
    });
    expect(attempts[0]!.responseStatusCode).toBe(500);
    expect(Buffer.byteLength(attempts[0]!.response)).toBeLessThanOrEqual(1024);
    expect(attempts[0]!.response.startsWith('internal-secret-')).toBe(true);

    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-x', baseUrl: providers.baseUrls.openai }] });
    const failed = await t.callK('/v2/rewriter/ask-ai', { model: 'gpt-4o', prompt: 'p', text: 't' });
    expect(answerOf<AskAnswer>(failed).success).toBe(false);
    const error = answerOf<AskAnswer>(failed).error!;
    expect(error.startsWith('OpenAI answered 500: internal-secret-')).toBe(true);
    expect(error.length).toBeLessThanOrEqual('OpenAI answered 500: '.length + 200);
  });
});
