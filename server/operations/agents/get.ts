import { agentGetInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { describeAgent, requireAgent } from '../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/get',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'One agent: its name, model, instructions and version.',
  input: agentGetInput,
  async handler(input, ctx) {
    return describeAgent(await requireAgent(ctx.app, ctx.scope, input.agentId));
  },
});
