import { endpointRecoverInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { recoverEndpoint } from '../../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/recover',
  auth: 'apiKey',
  summary: 'Hearth: sends every failed delivery to an endpoint (or basic:raw / basic:processed) since a time again, on a fresh retry schedule.',
  input: endpointRecoverInput,
  async handler(input, ctx) {
    const data = await recoverEndpoint(ctx.app, ctx.scope, input);
    return { message: `Recovery started for ${data.recovered} failed messages.`, data };
  },
});
