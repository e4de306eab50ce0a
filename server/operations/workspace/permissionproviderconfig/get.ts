import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describePermissionProviderConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/permissionproviderconfig/get',
  auth: 'apiKey',
  summary: "The API key's permission provider settings (stored only: Hearth decides access itself); the auth token appears only as authTokenConfigured.",
  input: z.object({}),
  handler(_input, ctx) {
    return { message: 'Permission provider configuration retrieved successfully.', data: describePermissionProviderConfig(ctx.app, ctx.apiKey) };
  },
});
