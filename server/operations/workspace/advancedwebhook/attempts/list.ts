import { attemptsListInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { listAttempts } from '../../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/attempts/list',
  auth: 'apiKey',
  summary: 'Hearth: delivery attempts of a message and/or an endpoint, newest first, with status code, duration and response excerpt.',
  input: attemptsListInput,
  async handler(input, ctx) {
    return { message: 'Advanced webhook attempts retrieved successfully.', data: await listAttempts(ctx.app, ctx.scope, input) };
  },
});
