import { groupUsersAddInput } from '../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { addGroupUsers } from '../../../../services/groups.ts';

export default defineOperation({
  path: '/v1/organizations/usergroups/users/add',
  auth: 'apiKey',
  summary: 'Adds known users to an organization user group.',
  input: groupUsersAddInput,
  async handler(input, ctx) {
    return { message: 'Added organization users to group successfully.', data: await addGroupUsers(ctx.app, ctx.scope, input) };
  },
});
