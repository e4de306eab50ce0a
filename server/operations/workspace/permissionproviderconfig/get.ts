import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describePermissionProviderConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/permissionproviderconfig/get',
  auth: 'apiKey',
  summary:
    "The API key's permission provider settings (with usePermissionProvider on, Hearth asks the provider for access decisions); the auth token appears only as authTokenConfigured.",
  input: z.object({}),
  async handler(_input, ctx) {
    return {
      message: 'Permission provider configuration retrieved successfully.',
      data: await describePermissionProviderConfig(ctx.app, ctx.scope, ctx.apiKey),
    };
  },
});
