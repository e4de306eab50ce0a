import { endpointRef } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { deleteEndpoint } from '../../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/delete',
  auth: 'apiKey',
  summary: 'Deletes an endpoint for good: pending deliveries are cancelled, requests in flight cut, its secret invalidated.',
  input: endpointRef,
  async handler(input, ctx) {
    return { message: 'Advanced webhook endpoint deleted successfully.', data: await deleteEndpoint(ctx.app, ctx.scope, input.endpointId) };
  },
});
