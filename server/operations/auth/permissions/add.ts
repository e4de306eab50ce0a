import { permissionsChangeInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addPermissions } from '../../../services/permissions.ts';

export default defineOperation({
  path: '/v2/auth/permissions/add',
  auth: 'apiKey',
  summary: 'Grants a user roles on organizations, folders and documents, optionally until expiresAt (Unix seconds).',
  input: permissionsChangeInput,
  async handler(input, ctx) {
    await addPermissions(ctx.app, ctx.scope, input.user.userId, input.permissions);
    return { message: 'Permissions added successfully.' };
  },
});
