import { definitionGetInput } from '../../../../shared/schemas/ai.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getDefinition } from '../../../services/workflows.ts';

export default defineOperation({
  path: '/v2/workflow/definitions/get',
  auth: 'apiKey',
  envelope: 'direct',
  summary: 'A workflow definition (tombstoned = NOT_FOUND; scoped ones need their organizationId / documentId).',
  input: definitionGetInput,
  async handler(input, ctx) {
    return getDefinition(ctx.app, ctx.scope, input);
  },
});
