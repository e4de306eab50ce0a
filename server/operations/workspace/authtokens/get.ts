import { apiKeyRef } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { findWorkspaceKey, listAuthTokens } from '../../../services/apikeys.ts';
import { authTokensAnswer } from '../../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/workspace/authtokens/get',
  auth: 'workspace',
  summary: "Lists an API key's auth tokens with their names and allowed domains.",
  input: apiKeyRef,
  output: authTokensAnswer,
  async handler(input, ctx) {
    const { row, scope } = await findWorkspaceKey(ctx.app, ctx.workspaceScope, input.apiKey);
    return { message: 'Auth tokens retrieved successfully.', data: { apiKey: row.id, authTokens: await listAuthTokens(ctx.app, scope) } };
  },
});
