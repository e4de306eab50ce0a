import { agentUpdateInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateAgent } from '../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/update',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Changes an agent; its version goes up by one.',
  input: agentUpdateInput,
  async handler(input, ctx) {
    return updateAgent(ctx.app, ctx.scope, input);
  },
});
