import { usersAddInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { addUsers } from '../../services/users.ts';

export default defineOperation({
  path: '/v2/users/add',
  auth: 'apiKey',
  summary: 'Adds users at organization, folder or document level (default role editor); a missing organization is created.',
  input: usersAddInput,
  async handler(input, ctx) {
    return { message: 'User(s) processed successfully.', data: await addUsers(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
