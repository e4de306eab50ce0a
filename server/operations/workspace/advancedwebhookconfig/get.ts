import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { getAdvancedConfig } from '../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhookconfig/get',
  auth: 'apiKey',
  summary: 'The advanced webhook configuration (every flag false and publicKey "" when never configured).',
  input: z.object({}),
  async handler(_input, ctx) {
    return { message: 'Advanced webhook configuration retrieved successfully.', data: await getAdvancedConfig(ctx.app, ctx.scope) };
  },
});
