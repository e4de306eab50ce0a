import { webhookConfigUpdateInput } from '../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeBasicConfig, updateBasicConfig } from '../../../services/webhooks.ts';
import { checkOutboundTargets } from '../../../services/outbound-targets.ts';

export default defineOperation({
  path: '/v2/workspace/webhookconfig/update',
  auth: 'apiKey',
  summary: 'Configures the basic webhook service (raw and processed URLs, Basic auth token, encoding, encryption, triggers); partial.',
  input: webhookConfigUpdateInput,
  async handler(input, ctx) {
    const targets = input.webhookServiceConfig;
    await checkOutboundTargets(ctx.app, [
      ['webhookServiceConfig.rawNotificationUrl', targets?.rawNotificationUrl],
      ['webhookServiceConfig.processedNotificationUrl', targets?.processedNotificationUrl],
    ]);
    const row = await updateBasicConfig(ctx.app, ctx.scope, input);
    return { message: 'Webhook configuration updated successfully.', data: await describeBasicConfig(ctx.app, ctx.scope, row) };
  },
});
