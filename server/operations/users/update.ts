import { usersUpdateInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateUsers } from '../../services/users.ts';

export default defineOperation({
  path: '/v2/users/update',
  auth: 'apiKey',
  summary: 'Updates name, e-mail, initial and access role of users present at the given level.',
  input: usersUpdateInput,
  async handler(input, ctx) {
    return { message: 'User(s) processed successfully.', data: await updateUsers(ctx.app, ctx.scope, input) };
  },
});
