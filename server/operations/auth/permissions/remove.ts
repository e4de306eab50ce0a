import { permissionsChangeInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { removePermissions } from '../../../services/permissions.ts';

export default defineOperation({
  path: '/v2/auth/permissions/remove',
  auth: 'apiKey',
  summary: "Removes a user's roles on the given organizations, folders and documents.",
  input: permissionsChangeInput,
  async handler(input, ctx) {
    await removePermissions(ctx.app, ctx.scope, input.user.userId, input.permissions);
    return { message: 'Permissions removed successfully.' };
  },
});
