import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';

export default defineOperation({
  path: '/v2/workspace/domains/get',
  auth: 'apiKey',
  summary: "The API key's allowed domains: the only origins whose pages may open its documents over the websocket (none listed: any origin).",
  input: z.object({}),
  handler(_input, ctx) {
    return { message: 'Allowed domains retrieved successfully.', data: { domains: ctx.apiKey.allowedDomains } };
  },
});
