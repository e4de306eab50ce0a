import { endpointsGetInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { listEndpoints } from '../../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/get',
  aliases: ['/v2/workspace/advancedwebhook/endpoints/list'],
  auth: 'apiKey',
  summary: 'Lists the endpoints, oldest first (limit 1..250, iterator paging); with endpointId, that one endpoint.',
  input: endpointsGetInput,
  async handler(input, ctx) {
    return { message: 'Advanced webhook endpoints retrieved successfully.', data: await listEndpoints(ctx.app, ctx.scope, input) };
  },
});
