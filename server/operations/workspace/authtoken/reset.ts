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
    const row = findWorkspaceKey(ctx.app, ctx.workspace, input.apiKey);
    const authToken = resetAuthToken(ctx.app, row, input.authToken);
    return { message: 'Auth token reset successfully.', data: { apiKey: row.id, authToken } };
  },
});
