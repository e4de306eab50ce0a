import { apiKeysGetInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { listApiKeys } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/apikeys/get',
  auth: 'workspace',
  summary: "Lists the workspace's API keys, oldest first, optionally only the given ones; keyset-paginated.",
  input: apiKeysGetInput,
  async handler(input, ctx) {
    const page = await listApiKeys(ctx.app, ctx.workspaceScope, input);
    return { message: 'API keys retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
