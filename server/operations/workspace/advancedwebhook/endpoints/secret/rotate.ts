import { secretRotateInput } from '../../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../../http/operation.ts';
import { rotateSecret } from '../../../../../services/webhooks.ts';
import { endpointSecretAnswer } from '../../../../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/endpoints/secret/rotate',
  auth: 'apiKey',
  summary: 'Replaces the signing secret (given or generated); the previous one keeps signing alongside it for 24 hours.',
  input: secretRotateInput,
  output: endpointSecretAnswer,
  async handler(input, ctx) {
    return { message: 'Advanced webhook endpoint secret rotated successfully.', data: await rotateSecret(ctx.app, ctx.scope, input) };
  },
});
