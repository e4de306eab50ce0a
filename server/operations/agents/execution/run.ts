import { executionRunInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { runExecution } from '../../../services/agents.ts';

export default defineOperation({
  path: '/v2/agents/execution/run',
  auth: 'apiKey',
  envelope: 'direct',
  summary: "Runs an agent over a text or a document's editor content in the background; findings become comment annotations.",
  input: executionRunInput,
  async handler(input, ctx) {
    return runExecution(ctx.app, ctx.scope, ctx.apiKey, input);
  },
});
