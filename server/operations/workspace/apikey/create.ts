import { apiKeyCreateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { createApiKey } from '../../../services/apikeys.ts';
import { checkOutboundTargets } from '../../../services/outbound-targets.ts';

export default defineOperation({
  path: '/v2/workspace/apikey/create',
  auth: 'workspace',
  summary: 'Creates a testing or production API key (production needs a paid, self-serve workspace below its key limit).',
  input: apiKeyCreateInput,
  async handler(input, ctx) {
    const targets = input.webhookServiceConfig;
    await checkOutboundTargets(ctx.app, [
      ['webhookServiceConfig.rawNotificationUrl', targets?.rawNotificationUrl],
      ['webhookServiceConfig.processedNotificationUrl', targets?.processedNotificationUrl],
    ]);
    const row = await createApiKey(ctx.app, ctx.workspaceScope, input);
    return { message: 'API key created successfully.', data: { apiKey: row.id } };
  },
});
