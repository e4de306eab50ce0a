import { apiKeyUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeApiKey, findWorkspaceKey, renameApiKey } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/apikey/update',
  auth: 'workspace',
  summary: "Renames one of the workspace's API keys.",
  input: apiKeyUpdateInput,
  async handler(input, ctx) {
    const row = findWorkspaceKey(ctx.app, ctx.workspace, input.apiKey);
    renameApiKey(ctx.app, row, input.apiKeyName);
    return { message: 'API key updated successfully.', data: describeApiKey(findWorkspaceKey(ctx.app, ctx.workspace, row.id)) };
  },
});
