import { apiKeyConfigUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeApiKeyConfig, updateApiKeyConfig } from '../../../services/apikeys.ts';
import { checkOutboundTargets } from '../../../services/outbound-targets.ts';

export default defineOperation({
  path: '/v2/workspace/apikeyconfig/update',
  auth: 'apiKey',
  summary: "Updates the calling API key's settings and AI provider keys (stored encrypted, never returned).",
  input: apiKeyConfigUpdateInput,
  async handler(input, ctx) {
    await checkOutboundTargets(
      ctx.app,
      (input.aiModelApiKey ?? []).map((key, i) => [`aiModelApiKey[${i}].baseUrl`, key.baseUrl] as const),
    );
    const row = await updateApiKeyConfig(ctx.app, ctx.scope, input);
    return { message: 'API key configuration updated successfully.', data: await describeApiKeyConfig(ctx.app, ctx.scope, row) };
  },
});
