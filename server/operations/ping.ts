import { z } from 'zod';
import { defineOperation } from '../http/operation.ts';

export default defineOperation({
  path: '/v2/ping',
  auth: 'public',
  summary: 'Health check: answers pong with the server version.',
  input: z.object({}),
  cache: 'constant',
  handler(_input, ctx) {
    return { message: 'pong', data: { version: ctx.app.version } };
  },
});
