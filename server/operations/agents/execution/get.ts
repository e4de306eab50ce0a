import { executionGetInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getExecution } from '../../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/execution/get',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'One execution, with its status, timing, token usage and findings.',
  input: executionGetInput,
  async handler(input, ctx) {
    return getExecution(ctx.app, ctx.scope, input.executionId);
  },
});
