import type { z } from 'zod';
import type { askAiInput } from '../../shared/schemas/ai.ts';
import { complete, isReasoningModel, PROVIDER_NAMES, ProviderError, providerOf, type Completion } from '../ai/providers.ts';
import type { TenantScope } from '../db/scope.ts';
import { aiProviderSecretName, getSecret } from './apikeys.ts';
import type { Storage } from '../db/repos/index.ts';
import type { Secrets } from '../security/secrets.ts';
import type { Config } from '../config.ts';

/** What a completion uses: the key's provider settings and secret (storage, secrets), and the timeouts and outbound rules (config). */
export type CompletionDeps = { storage: Storage; secrets: Secrets; config: Config };

/**
 * Runs `model` with a prompt and a text for an API key, with the key's provider key and base URL. The prompt
 * is the system prompt, except for reasoning models (o1/o3/o4), which get it prepended to the text in one user
 * message (interface.md). Throws ProviderError for everything the caller reports as a soft failure. Never called
 * inside a unit of work: it waits on the provider.
 */
export async function completeFor(deps: CompletionDeps, scope: TenantScope, model: string, prompt: string, text: string): Promise<Completion> {
  const provider = providerOf(model);
  if (!provider)
    throw new ProviderError(`Unsupported model: ${model}. Model names start with gpt-, o1, o3, o4 (OpenAI), claude- (Anthropic) or gemini- (Gemini).`);
  const key = await getSecret(deps, scope, aiProviderSecretName(provider));
  if (!key) throw new ProviderError(`No API key configured for provider: ${PROVIDER_NAMES[provider]}`);
  const providers = await deps.storage.agents.providerSettings(scope);
  const reasoning = isReasoningModel(model);
  return complete({
    provider,
    model,
    system: reasoning ? null : prompt,
    user: reasoning ? `${prompt}\n\n${text}` : text,
    apiKey: key,
    baseUrl: providers?.[provider]?.baseUrl ?? null,
    timeoutMs: deps.config.aiTimeoutMs,
    outboundPrivate: deps.config.outboundPrivate,
  });
}

/** /v2/rewriter/ask-ai: `{ success: true, text }`, or `{ success: false, error }` when the provider call fails. */
export async function askAi(deps: CompletionDeps, scope: TenantScope, input: z.output<typeof askAiInput>) {
  try {
    const { text } = await completeFor(deps, scope, input.model, input.prompt, input.text);
    return { success: true as const, text };
  } catch (error) {
    if (error instanceof ProviderError) return { success: false as const, error: error.message };
    throw error;
  }
}
