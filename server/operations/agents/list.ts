import { agentListInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { listAgents } from '../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/list',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'The agents, oldest first: `{ items, nextCursor }`.',
  input: agentListInput,
  async handler(input, ctx) {
    return listAgents(ctx.app, ctx.scope, input);
  },
});
