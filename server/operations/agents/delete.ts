import { agentDeleteInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteAgent } from '../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/delete',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Deletes an agent (its executions stay).',
  input: agentDeleteInput,
  async handler(input, ctx) {
    return deleteAgent(ctx.app, ctx.scope, input.agentId);
  },
});
