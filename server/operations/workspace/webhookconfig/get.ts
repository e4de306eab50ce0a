import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describeBasicConfig } from '../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/webhookconfig/get',
  auth: 'apiKey',
  summary: 'The basic webhook service configuration; the auth token appears only as authTokenConfigured.',
  input: z.object({}),
  async handler(_input, ctx) {
    return { message: 'Webhook configuration retrieved successfully.', data: await describeBasicConfig(ctx.app, ctx.scope, ctx.apiKey) };
  },
});
