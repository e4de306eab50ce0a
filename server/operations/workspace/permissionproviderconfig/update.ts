import { permissionProviderConfigUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describePermissionProviderConfig } from '../../../services/apikeys.ts';
import { updatePermissionProviderConfig } from '../../../services/workspace-config.ts';

export default defineOperation({
  path: '/v2/workspace/permissionproviderconfig/update',
  auth: 'apiKey',
  summary:
    "Stores the API key's permission provider settings (usePermissionProvider, an http(s) permissionProviderUrl, an auth token kept encrypted); partial, '' clears a field. In the permission provider mode Hearth asks that URL for access decisions (README).",
  input: permissionProviderConfigUpdateInput,
  async handler(input, ctx) {
    const row = await updatePermissionProviderConfig(ctx.app, ctx.scope, input);
    return { message: 'Permission provider configuration updated successfully.', data: await describePermissionProviderConfig(ctx.app, ctx.scope, row) };
  },
});
