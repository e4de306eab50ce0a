import { definitionCreateInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { createDefinition } from '../../../services/workflows.ts';

export default defineOperation({
  path: '/v2/workflow/definitions/create',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'Creates a workflow definition after checking its graph rules; version 1.',
  input: definitionCreateInput,
  async handler(input, ctx) {
    return createDefinition(ctx.app, ctx.scope, input);
  },
});
