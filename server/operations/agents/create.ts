import { agentCreateInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { createAgent } from '../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/create',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Creates an agent (name, model, instructions); version 1.',
  input: agentCreateInput,
  async handler(input, ctx) {
    return createAgent(ctx.app, ctx.scope, input);
  },
});
