import { definitionDeleteInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { deleteDefinition } from '../../../services/workflows.ts';

export default defineOperation({
  path: '/v2/workflow/definitions/delete',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Tombstones a definition, or removes it with `purge`.',
  input: definitionDeleteInput,
  async handler(input, ctx) {
    return deleteDefinition(ctx.app, ctx.scope, input);
  },
});
