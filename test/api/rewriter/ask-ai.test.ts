import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureProviders, startProviders, type Providers } from '../../helpers/ai-providers.ts';
import { createWorkspace } from '../../helpers/factories.ts';
import { dataOf, errorOf, startTestServer, type TestServer, answerOf } from '../../helpers/server.ts';

const path = '/v2/rewriter/ask-ai';
/** ask-ai answers the outcome itself: the model's text, or why there is none. */
interface AskAnswer {
  success: boolean;
  text?: string;
  error?: string;
}

let t: TestServer;
let providers: Providers;

beforeAll(async () => {
  providers = await startProviders((r) => {
    const text = JSON.stringify(r.body);
    if (text.includes('please hang')) return 'hang';
    if (text.includes('please fail')) return { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } };
    return { text: `answer from ${r.provider}` };
  });
  t = await startTestServer({ aiTimeoutMs: 400 });
  await configureProviders(t, providers);
});
afterAll(async () => {
  await t.close();
  await providers.close();
});

const ask = (model: string, prompt = 'Make it formal.', text = 'hey there') => t.callK(path, { model, prompt, text });

describe('/v2/rewriter/ask-ai', () => {
  it('sends gpt-* to the OpenAI API: the prompt as the system message, the key as a bearer token', async () => {
    const res = await ask('gpt-4o-mini');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { success: true, text: 'answer from openai' } });
    const r = providers.received.at(-1)!;
    expect(r.path).toBe('/openai/v1/chat/completions');
    expect(r.headers.authorization).toBe('Bearer sk-openai-test');
    expect(r.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Make it formal.' },
        { role: 'user', content: 'hey there' },
      ],
    });
  });

  it('sends the text and prompt as given: the whitespace around a selection is part of it', async () => {
    const res = await ask('gpt-4o-mini', '  Fix the grammar.\n', '\n  hello   world  \n');
    expect(answerOf<AskAnswer>(res).success).toBe(true);
    expect(providers.received.at(-1)!.body.messages).toEqual([
      { role: 'system', content: '  Fix the grammar.\n' },
      { role: 'user', content: '\n  hello   world  \n' },
    ]);
    // whitespace is text too; only an empty string is refused
    expect(answerOf<AskAnswer>(await ask('gpt-4o-mini', 'Fix.', ' ')).success).toBe(true);
    expect(errorOf(await ask('gpt-4o-mini', 'Fix.', ''))).toEqual({ status: 'INVALID_ARGUMENT', message: 'text must not be empty.' });
  });

  it('gives reasoning models (o1, o3, o4) the prompt prepended to the text in one user message', async () => {
    for (const model of ['o1-mini', 'o3-mini', 'o4-mini', 'o1', 'o3']) {
      expect(answerOf(await ask(model))).toEqual({ success: true, text: 'answer from openai' });
      expect(providers.received.at(-1)!.body).toEqual({ model, messages: [{ role: 'user', content: 'Make it formal.\n\nhey there' }] });
    }
  });

  it('sends claude-* to the Anthropic Messages API with x-api-key and a system prompt', async () => {
    expect(answerOf(await ask('claude-sonnet-4-5'))).toEqual({ success: true, text: 'answer from anthropic' });
    const r = providers.received.at(-1)!;
    expect(r.path).toBe('/anthropic/v1/messages');
    expect(r.headers['x-api-key']).toBe('sk-ant-test');
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 4096, system: 'Make it formal.', messages: [{ role: 'user', content: 'hey there' }] });
  });

  it('sends gemini-* to generateContent with x-goog-api-key and a system instruction', async () => {
    expect(answerOf(await ask('gemini-2.5-flash'))).toEqual({ success: true, text: 'answer from gemini' });
    const r = providers.received.at(-1)!;
    expect(r.path).toBe('/gemini/v1beta/models/gemini-2.5-flash:generateContent');
    expect(r.headers['x-goog-api-key']).toBe('gm-test');
    expect(r.body).toEqual({ systemInstruction: { parts: [{ text: 'Make it formal.' }] }, contents: [{ role: 'user', parts: [{ text: 'hey there' }] }] });
  });

  it('answers success:false for a provider error, a timeout and an unknown model, in a success envelope', async () => {
    const refused = await ask('gpt-4o', 'please fail');
    expect(refused.status).toBe(200);
    expect(answerOf(refused)).toEqual({ success: false, error: 'OpenAI answered 401: Incorrect API key provided' });
    const slow = await ask('claude-3-haiku', 'please hang');
    expect(answerOf(slow)).toEqual({ success: false, error: 'Anthropic did not answer within 400 ms.' });
    const unknown = await ask('llama-3-70b');
    expect(answerOf<AskAnswer>(unknown).success).toBe(false);
    expect(answerOf<AskAnswer>(unknown).error).toMatch(/^Unsupported model: llama-3-70b\. Model names start with gpt-/);
    // the o-series names are o1, o3, o4 with or without a suffix, not anything that starts with them
    for (const model of ['o10', 'o3x', 'o2-mini']) expect(answerOf<AskAnswer>(await ask(model)).error).toMatch(new RegExp(`^Unsupported model: ${model}\\.`));
  });

  it('answers success:false when the provider cannot be reached', async () => {
    // a port that was free a moment ago: nothing listens there
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    await t.callK('/v2/workspace/apikeyconfig/update', {
      aiModelApiKey: [{ provider: 'gemini', customerApiKey: 'gm-test', baseUrl: `http://127.0.0.1:${port}` }],
    });
    const res = await ask('gemini-2.0-flash');
    expect(answerOf<AskAnswer>(res).success).toBe(false);
    expect(answerOf<AskAnswer>(res).error).toMatch(new RegExp(`^Gemini could not be reached at http://127.0.0.1:${port}: `));
    await configureProviders(t, providers);
  });

  it('answers success:false naming the provider when no key is configured, per API key', async () => {
    const other = await createWorkspace(t);
    const res = await t.callK(path, { model: 'gpt-4o', prompt: 'p', text: 'x' }, other.headersK);
    expect(res.body).toEqual({ result: { success: false, error: 'No API key configured for provider: OpenAI' } });
    // removing a key (empty string) makes it missing again
    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'anthropic', customerApiKey: '' }] });
    expect(answerOf(await ask('claude-3-haiku'))).toEqual({ success: false, error: 'No API key configured for provider: Anthropic' });
    await configureProviders(t, providers);
  });

  it('never returns the provider keys', async () => {
    const config = await t.callK('/v2/workspace/apikeyconfig/get', {});
    const text = JSON.stringify(config.body);
    for (const key of ['sk-openai-test', 'sk-ant-test', 'gm-test']) expect(text).not.toContain(key);
    expect(dataOf<{ aiModelApiKey: unknown[] }>(config).aiModelApiKey).toContainEqual({
      provider: 'openai',
      configured: true,
      baseUrl: providers.baseUrls.openai,
    });
  });

  it('rejects bad arguments with INVALID_ARGUMENT', async () => {
    expect(errorOf(await t.callK(path, { prompt: 'p', text: 't' }))).toEqual({ status: 'INVALID_ARGUMENT', message: 'model is required.' });
    expect(errorOf(await t.callK(path, { model: 'gpt-4o', prompt: '', text: 't' }))).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'prompt must not be empty.',
    });
    expect(errorOf(await t.callK(path, { model: 'gpt-4o', prompt: 'p', text: 5 })).status).toBe('INVALID_ARGUMENT');
    const before = providers.received.length;
    expect((await t.callK(path, { model: 'gpt-4o', prompt: 'p' })).status).toBe(400);
    expect(providers.received.length).toBe(before);
  });
});
