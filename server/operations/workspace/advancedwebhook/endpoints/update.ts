import { endpointUpdateInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { updateEndpoint } from '../../../../services/webhooks.ts';
import { checkOutboundTargets } from '../../../../services/outbound-targets.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/update',
  auth: 'apiKey',
  summary: 'Changes the given fields of an endpoint; re-enabling it restarts its failure count.',
  input: endpointUpdateInput,
  async handler(input, ctx) {
    await checkOutboundTargets(ctx.app, [['url', input.url]]);
    return { message: 'Advanced webhook endpoint updated successfully.', data: await updateEndpoint(ctx.app, ctx.scope, input) };
  },
});
