// Small typed clients for the three provider families of interface.md (OpenAI chat completions, Anthropic
// Messages, Gemini generateContent), over node:http with a timeout and the OUTBOUND_PRIVATE policy. Each provider's base URL is configurable per API
// key, so `gpt-*` can point at any OpenAI-compatible server inside the team's network. The official SDKs would
// add three dependency trees for three POST requests; these clients speak the same wire formats.
import type { AiProvider } from '../../shared/schemas/apikey.ts';
import { outboundPost, type OutboundPolicy } from '../security/outbound.ts';

export interface Completion {
  text: string;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
}

export interface CompletionRequest {
  provider: AiProvider;
  model: string;
  /** Sent as the system prompt (null: everything is in `user`). */
  system: string | null;
  user: string;
  apiKey: string;
  /** Base URL of the provider's API; the provider's own when null. */
  baseUrl: string | null;
  timeoutMs: number;
  /** OUTBOUND_PRIVATE: whether the base URL may be a loopback, private or link-local address. */
  outboundPrivate: OutboundPolicy;
}

/** A failure the caller reports as `{ success: false, error }` (no key, provider down, timeout, refusal). */
export class ProviderError extends Error {}

export const PROVIDER_NAMES: Record<AiProvider, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' };

export const DEFAULT_BASE_URLS: Record<AiProvider, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

// `o1`, `o3` and `o4-mini` alike: OpenAI names some o-series models without a suffix
const O_SERIES = /^o[134](-|$)/;

/** The provider of a model name (interface.md prefixes), or null for a name Hearth cannot route. */
export function providerOf(model: string): AiProvider | null {
  if (model.startsWith('gpt-') || O_SERIES.test(model)) return 'openai';
  if (model.startsWith('claude-')) return 'anthropic';
  if (model.startsWith('gemini-')) return 'gemini';
  return null;
}

/** o-series models take no system prompt: the prompt is prepended to the text in one user message. */
export const isReasoningModel = (model: string) => O_SERIES.test(model);

const MAX_OUTPUT_TOKENS = 4096;

/** A provider's answer kept in memory at most (a completion of MAX_OUTPUT_TOKENS is far less). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** What a provider's error shows of its answer: enough to tell the reason, too little to read an internal service with. */
const ERROR_EXCERPT = 200;

export async function complete(request: CompletionRequest): Promise<Completion> {
  const base = (request.baseUrl ?? DEFAULT_BASE_URLS[request.provider]).replace(/\/+$/, '');
  const name = PROVIDER_NAMES[request.provider];
  const { url, headers, body } = wireRequest(request, base);
  let status: number;
  let text: string;
  try {
    const answer = await outboundPost(url, {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(request.timeoutMs),
      limit: MAX_ANSWER_BYTES,
      policy: request.outboundPrivate,
    });
    status = answer.status;
    text = answer.body;
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    if (timedOut) throw new ProviderError(`${name} did not answer within ${request.timeoutMs} ms.`);
    const cause = error instanceof Error ? error.message : String(error);
    throw new ProviderError(`${name} could not be reached at ${base}: ${cause}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderError(`${name} answered ${status} with a body that is not JSON: ${text.slice(0, ERROR_EXCERPT)}`);
  }
  if (status < 200 || status > 299) throw new ProviderError(`${name} answered ${status}: ${(errorMessageOf(json) ?? text).slice(0, ERROR_EXCERPT)}`);
  return parseCompletion(request.provider, json, name);
}

function wireRequest(r: CompletionRequest, base: string): { url: string; headers: Record<string, string>; body: unknown } {
  switch (r.provider) {
    case 'openai':
      return {
        url: `${base}/chat/completions`,
        headers: { authorization: `Bearer ${r.apiKey}` },
        body: { model: r.model, messages: [...(r.system === null ? [] : [{ role: 'system', content: r.system }]), { role: 'user', content: r.user }] },
      };
    case 'anthropic':
      return {
        url: `${base}/v1/messages`,
        headers: { 'x-api-key': r.apiKey, 'anthropic-version': '2023-06-01' },
        body: {
          model: r.model,
          max_tokens: MAX_OUTPUT_TOKENS,
          ...(r.system === null ? {} : { system: r.system }),
          messages: [{ role: 'user', content: r.user }],
        },
      };
    case 'gemini':
      return {
        url: `${base}/v1beta/models/${encodeURIComponent(r.model)}:generateContent`,
        headers: { 'x-goog-api-key': r.apiKey },
        body: {
          ...(r.system === null ? {} : { systemInstruction: { parts: [{ text: r.system }] } }),
          contents: [{ role: 'user', parts: [{ text: r.user }] }],
        },
      };
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function errorMessageOf(json: unknown): string | null {
  const error = obj(json).error;
  if (typeof error === 'string') return error;
  const message = obj(error).message;
  return typeof message === 'string' ? message : null;
}

function parseCompletion(provider: AiProvider, json: unknown, name: string): Completion {
  const body = obj(json);
  let text: string | null = null;
  let usage: Completion['usage'];
  if (provider === 'openai') {
    const choice = obj(Array.isArray(body.choices) ? body.choices[0] : undefined);
    const content = obj(choice.message).content;
    text = typeof content === 'string' ? content : null;
    const u = obj(body.usage);
    usage = { promptTokens: num(u.prompt_tokens), completionTokens: num(u.completion_tokens), totalTokens: num(u.total_tokens) };
  } else if (provider === 'anthropic') {
    const parts = Array.isArray(body.content) ? body.content.map(obj).filter((p) => p.type === 'text' && typeof p.text === 'string') : [];
    text = parts.length ? parts.map((p) => p.text as string).join('') : null;
    const u = obj(body.usage);
    usage = { promptTokens: num(u.input_tokens), completionTokens: num(u.output_tokens), totalTokens: num(u.input_tokens) + num(u.output_tokens) };
  } else {
    const candidate = obj(Array.isArray(body.candidates) ? body.candidates[0] : undefined);
    const parts = Array.isArray(obj(candidate.content).parts)
      ? (obj(candidate.content).parts as unknown[]).map(obj).filter((p) => typeof p.text === 'string')
      : [];
    text = parts.length ? parts.map((p) => p.text as string).join('') : null;
    const u = obj(body.usageMetadata);
    usage = { promptTokens: num(u.promptTokenCount), completionTokens: num(u.candidatesTokenCount), totalTokens: num(u.totalTokenCount) };
  }
  if (text === null) throw new ProviderError(`${name} answered without any text.`);
  if (usage.totalTokens === 0) usage.totalTokens = usage.promptTokens + usage.completionTokens;
  return { text, usage };
}
