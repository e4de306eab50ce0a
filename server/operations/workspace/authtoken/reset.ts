import { authTokenResetInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { findWorkspaceKey, resetAuthToken } from '../../../services/apikeys.ts';
import { authTokenAnswer } from '../../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/workspace/authtoken/reset',
  auth: 'workspace',
  summary: "Replaces an API key's auth token (the default one unless `authToken` names another); the old value stops working at once.",
  input: authTokenResetInput,
  output: authTokenAnswer,
  async handler(input, ctx) {
    const { row, scope } = await findWorkspaceKey(ctx.app, ctx.workspaceScope, input.apiKey);
    const authToken = await resetAuthToken(ctx.app, scope, input.authToken);
    return { message: 'Auth token reset successfully.', data: { apiKey: row.id, authToken } };
  },
});
