import { apiKeyUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeApiKey, findWorkspaceKey, renameApiKey } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/apikey/update',
  auth: 'workspace',
  summary: "Renames one of the workspace's API keys.",
  input: apiKeyUpdateInput,
  async handler(input, ctx) {
    const { scope } = await findWorkspaceKey(ctx.app, ctx.workspaceScope, input.apiKey);
    await renameApiKey(ctx.app, scope, input.apiKeyName);
    const { row } = await findWorkspaceKey(ctx.app, ctx.workspaceScope, scope.apiKeyId);
    return { message: 'API key updated successfully.', data: describeApiKey(row) };
  },
});
