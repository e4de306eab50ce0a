import { advancedWebhookConfigUpdateInput } from '../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../http/operation.ts';
import { updateAdvancedConfig } from '../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhookconfig/update',
  auth: 'apiKey',
  summary: 'Enables and configures advanced webhooks (the first call must set isEnabled: true); partial; returns the whole configuration.',
  input: advancedWebhookConfigUpdateInput,
  async handler(input, ctx) {
    return { message: 'Advanced webhook configuration updated successfully.', data: await updateAdvancedConfig(ctx.app, ctx.scope, input) };
  },
});
