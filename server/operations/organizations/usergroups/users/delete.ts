import { groupUsersDeleteInput } from '../../../../../shared/schemas/access.ts';
import { invalid } from '../../../../errors.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { deleteGroupUsers } from '../../../../services/groups.ts';

export default defineOperation({
  path: '/v2/organizations/usergroups/users/delete',
  auth: 'apiKey',
  summary: 'Removes users from a group: the given userIds, or everyone with deleteAll (which wins when both are sent).',
  input: groupUsersDeleteInput,
  async handler(input, ctx) {
    if (!input.deleteAll && !input.userIds?.length) throw invalid('Either userIds or deleteAll: true is required.');
    return { message: 'Deleted users from group successfully.', data: await deleteGroupUsers(ctx.app, ctx.scope, input) };
  },
});
