import { endpointRef } from '../../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../../http/operation.ts';
import { endpointSecret } from '../../../../../services/webhooks.ts';
import { endpointSecretAnswer } from '../../../../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/secret/get',
  auth: 'apiKey',
  summary: "The endpoint's current whsec_ signing secret.",
  input: endpointRef,
  output: endpointSecretAnswer,
  async handler(input, ctx) {
    return { message: 'Advanced webhook endpoint secret retrieved successfully.', data: await endpointSecret(ctx.app, ctx.scope, input.endpointId) };
  },
});
