import { definitionUpdateInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { updateDefinition } from '../../../services/workflows.ts';

export default defineOperation({
  path: '/v2/workflow/definitions/update',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Replaces a definition when `ifVersion` is its current version; the version goes up by one.',
  input: definitionUpdateInput,
  async handler(input, ctx) {
    return updateDefinition(ctx.app, ctx.scope, input);
  },
});
