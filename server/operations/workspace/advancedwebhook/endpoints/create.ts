import { endpointCreateInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { createEndpoint } from '../../../../services/webhooks.ts';
import { checkOutboundTargets } from '../../../../services/outbound-targets.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/create',
  auth: 'apiKey',
  summary: 'Creates a delivery endpoint (http/https URL, event type filter, channels, rate limit) with a generated whsec_ signing secret.',
  input: endpointCreateInput,
  async handler(input, ctx) {
    await checkOutboundTargets(ctx.app, [['url', input.url]]);
    return { message: 'Advanced webhook endpoint created successfully.', data: await createEndpoint(ctx.app, ctx.scope, input) };
  },
});
