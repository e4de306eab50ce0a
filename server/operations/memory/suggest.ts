import { suggestInput } from '../../../shared/schemas/ai.ts';
import { defineOperation } from '../../http/operation.ts';
import { suggest } from '../../services/memory.ts';

export default defineOperation({
  path: '/v2/memory/suggest',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'A decision suggestion from the judgments relevant to `query`: `{ primary, conflict }`.',
  input: suggestInput,
  async handler(input, ctx) {
    return suggest(ctx.app, ctx.scope, input);
  },
});
