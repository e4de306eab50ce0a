import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from './server.ts';

/** One request a provider server received. */
export interface ProviderRequest {
  provider: 'openai' | 'anthropic' | 'gemini';
  path: string;
  headers: IncomingMessage['headers'];
  body: ProviderBody;
}

/** A provider request's JSON as the tests read it: each provider's message list, the rest as sent. */
export interface ProviderBody {
  model?: string;
  /** OpenAI and Anthropic. */
  messages?: { role: string; content: string }[];
  /** Gemini. */
  contents?: { role?: string; parts: { text: string }[] }[];
  [field: string]: unknown;
}

export type ProviderReply = { text: string; usage?: { prompt: number; completion: number } } | { status: number; body: unknown } | 'hang';

/**
 * A local server on 127.0.0.1 that speaks each provider's wire format under its own prefix (`/openai/v1`,
 * `/anthropic`, `/gemini`): OpenAI chat completions, Anthropic Messages, Gemini generateContent. It records
 * every request and answers with `reply(request)` (text by default: "rewritten: <user text>").
 */
export async function startProviders(reply: (r: ProviderRequest) => ProviderReply | Promise<ProviderReply> = (r) => ({ text: `rewritten: ${userText(r)}` })) {
  const received: ProviderRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? '';
    const provider = path.startsWith('/openai/') ? 'openai' : path.startsWith('/anthropic/') ? 'anthropic' : 'gemini';
    const request: ProviderRequest = { provider, path, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') };
    received.push(request);
    const answer = await reply(request);
    if (answer === 'hang') {
      hanging.add(res);
      return;
    }
    res.setHeader('content-type', 'application/json');
    if ('status' in answer) {
      res.writeHead(answer.status).end(JSON.stringify(answer.body));
      return;
    }
    const prompt = answer.usage?.prompt ?? 11;
    const completion = answer.usage?.completion ?? 7;
    const body =
      provider === 'openai'
        ? {
            id: 'chatcmpl-1',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: 'stop' }],
            usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          }
        : provider === 'anthropic'
          ? {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              content: [{ type: 'text', text: answer.text }],
              stop_reason: 'end_turn',
              usage: { input_tokens: prompt, output_tokens: completion },
            }
          : {
              candidates: [{ content: { role: 'model', parts: [{ text: answer.text }] }, finishReason: 'STOP' }],
              usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: completion, totalTokenCount: prompt + completion },
            };
    res.writeHead(200).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    baseUrls: { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic`, gemini: `${url}/gemini` },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type Providers = Awaited<ReturnType<typeof startProviders>>;

/** The user text of a request, whatever the provider. */
export function userText(r: ProviderRequest): string {
  const text = r.provider === 'gemini' ? r.body.contents?.at(-1)?.parts[0]?.text : r.body.messages?.at(-1)?.content;
  if (text === undefined) throw new Error(`no user text in the ${r.provider} request: ${JSON.stringify(r.body).slice(0, 300)}`);
  return text;
}

/** Sets the key and base URL of every provider for the test server's default API key. */
export async function configureProviders(
  t: TestServer,
  providers: Providers,
  keys: Partial<Record<'openai' | 'anthropic' | 'gemini', string>> = { openai: 'sk-openai-test', anthropic: 'sk-ant-test', gemini: 'gm-test' },
  headers?: Record<string, string>,
) {
  const aiModelApiKey = Object.entries(keys).map(([provider, customerApiKey]) => ({
    provider,
    customerApiKey,
    baseUrl: providers.baseUrls[provider as keyof typeof providers.baseUrls],
  }));
  const res = await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey }, headers);
  if (res.status !== 200) throw new Error(`apikeyconfig/update failed: ${JSON.stringify(res.body)}`);
}
