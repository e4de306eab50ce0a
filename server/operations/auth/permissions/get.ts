import { permissionsGetInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getPermissions } from '../../../services/permissions.ts';

export default defineOperation({
  path: '/v2/auth/permissions/get',
  auth: 'apiKey',
  summary: "Each user's effective access to the organization and the given folders and documents, with the reasons.",
  input: permissionsGetInput,
  async handler(input, ctx) {
    return { message: 'User permissions retrieved successfully.', data: await getPermissions(ctx.app, ctx.scope, input) };
  },
});
