import { userGroupsAddInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addGroups } from '../../../services/groups.ts';

export default defineOperation({
  path: '/v2/organizations/usergroups/add',
  auth: 'apiKey',
  summary: 'Creates organization user groups.',
  input: userGroupsAddInput,
  async handler(input, ctx) {
    return { message: 'Organization User Groups added successfully.', data: await addGroups(ctx.app, ctx.scope, input) };
  },
});
