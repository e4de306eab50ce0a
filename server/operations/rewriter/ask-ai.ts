import { askAiInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { askAi } from '../../services/ai.ts';

export default defineOperation({
  path: '/v2/rewriter/ask-ai',
  auth: 'apiKey',
  envelope: 'direct',
  summary: "Runs a prompt over a text with the model's provider (OpenAI, Anthropic, Gemini): `{ success, text | error }`.",
  input: askAiInput,
  async handler(input, ctx) {
    return askAi(ctx.app, ctx.scope, input);
  },
});
