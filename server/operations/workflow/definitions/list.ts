import { definitionListInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { listDefinitions } from '../../../services/workflows.ts';

export default defineOperation({
  path: '/v2/workflow/definitions/list',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Active definitions by id: `{ items, nextCursor }`.',
  input: definitionListInput,
  async handler(input, ctx) {
    return listDefinitions(ctx.app, ctx.scope, input);
  },
});
