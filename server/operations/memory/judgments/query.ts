import { judgmentsQueryInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { queryJudgments } from '../../../services/memory.ts';

export default defineOperation({
  path: '/v2/memory/judgments/query',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Recorded judgments, newest first, filtered: `{ items, nextCursor }`.',
  input: judgmentsQueryInput,
  async handler(input, ctx) {
    return queryJudgments(ctx.app, ctx.scope, input);
  },
});
