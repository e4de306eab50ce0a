import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { askAiInput } from '../../shared/schemas/ai.ts';
import { complete, isReasoningModel, PROVIDER_NAMES, ProviderError, providerOf, type Completion } from '../ai/providers.ts';
import type { AppContext } from '../context.ts';
import { apiKeys } from '../db/schema.ts';
import { aiProviderSecretName, getSecret } from './apikeys.ts';

/**
 * Runs `model` with a prompt and a text for an API key, with the key's provider key and base URL. The prompt
 * is the system prompt, except for reasoning models (o1/o3/o4), which get it prepended to the text in one user
 * message (interface.md). Throws ProviderError for everything the caller reports as a soft failure.
 */
export async function completeFor(app: Pick<AppContext, 'db' | 'secrets' | 'config'>, apiKeyId: string, model: string, prompt: string, text: string): Promise<Completion> {
  const provider = providerOf(model);
  if (!provider) throw new ProviderError(`Unsupported model: ${model}. Model names start with gpt-, o1, o3, o4 (OpenAI), claude- (Anthropic) or gemini- (Gemini).`);
  const key = getSecret(app as AppContext, apiKeyId, aiProviderSecretName(provider));
  if (!key) throw new ProviderError(`No API key configured for provider: ${PROVIDER_NAMES[provider]}`);
  const settings = app.db.select({ settings: apiKeys.settings }).from(apiKeys).where(eq(apiKeys.id, apiKeyId)).get()?.settings;
  const reasoning = isReasoningModel(model);
  return complete({
    provider,
    model,
    system: reasoning ? null : prompt,
    user: reasoning ? `${prompt}\n\n${text}` : text,
    apiKey: key,
    baseUrl: settings?.aiProviders[provider]?.baseUrl ?? null,
    timeoutMs: app.config.aiTimeoutMs,
    outboundPrivate: app.config.outboundPrivate,
  });
}

/** /v2/rewriter/ask-ai: `{ success: true, text }`, or `{ success: false, error }` when the provider call fails. */
export async function askAi(app: AppContext, apiKeyId: string, input: z.output<typeof askAiInput>) {
  try {
    const { text } = await completeFor(app, apiKeyId, input.model, input.prompt, input.text);
    return { success: true as const, text };
  } catch (error) {
    if (error instanceof ProviderError) return { success: false as const, error: error.message };
    throw error;
  }
}
