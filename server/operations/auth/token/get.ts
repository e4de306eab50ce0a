import { legacyTokenInput } from '../../../../shared/schemas/access.ts';
import type { TenantScope } from '../../../db/scope.ts';
import { ApiError, invalid } from '../../../errors.ts';
import { defineOperation } from '../../../http/operation.ts';
import { ApiKeyDisabledError, authenticateApiKey } from '../../../services/apikeys.ts';
import { legacyUserToken } from '../../../services/permissions.ts';
import { userTokenAnswer } from '../../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v1/auth/token/get',
  // the key's credentials come in the body, not in headers (the legacy form)
  auth: 'public',
  summary: 'Legacy form of generate_token: the API key and its auth token in the body, the user with their organization; returns the user token.',
  input: legacyTokenInput,
  output: userTokenAnswer,
  async handler(input, ctx) {
    let scope: TenantScope;
    try {
      ({ scope } = await authenticateApiKey(ctx.app, input.apiKey, input.authToken));
    } catch (error) {
      // an unknown key and a wrong token answer alike
      if (error instanceof ApiError) throw error instanceof ApiKeyDisabledError ? error : invalid('Auth token not found.');
      throw error;
    }
    return { message: 'Token generated successfully.', data: { token: await legacyUserToken(ctx.app, scope, input) } };
  },
});
