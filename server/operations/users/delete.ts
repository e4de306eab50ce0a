import { usersDeleteInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteUsers } from '../../services/users.ts';

export default defineOperation({
  path: '/v1/users/delete',
  aliases: ['/v2/users/delete'],
  auth: 'apiKey',
  summary: 'Removes users from an organization (all its folders and documents), a folder or a document.',
  input: usersDeleteInput,
  async handler(input, ctx) {
    return { message: 'User(s) deleted successfully.', data: await deleteUsers(ctx.app, ctx.scope, input) };
  },
});
