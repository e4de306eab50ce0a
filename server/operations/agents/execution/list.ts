import { executionListInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { listExecutions } from '../../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/execution/list',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Executions by startedAt, filtered: `{ items, nextCursor, hasMore }`.',
  input: executionListInput,
  async handler(input, ctx) {
    return listExecutions(ctx.app, ctx.scope, input);
  },
});
