import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describeEmailConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/emailconfig/get',
  auth: 'apiKey',
  summary: "Whether the API key's notifications are mailed, and the sender and provider settings; the provider key appears only as apiKeyConfigured.",
  input: z.object({}),
  async handler(_input, ctx) {
    return { message: 'Email configuration retrieved successfully.', data: await describeEmailConfig(ctx.app, ctx.scope, ctx.apiKey) };
  },
});
