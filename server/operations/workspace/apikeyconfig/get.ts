import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describeApiKeyConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/apikeyconfig/get',
  auth: 'apiKey',
  summary: "The calling API key's settings; secrets appear only as `configured` flags.",
  input: z.object({}),
  async handler(_input, ctx) {
    return { message: 'API key metadata retrieved successfully.', data: await describeApiKeyConfig(ctx.app, ctx.scope, ctx.apiKey) };
  },
});
