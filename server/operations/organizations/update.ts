import { organizationsUpdateInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateOrganizations } from '../../services/organizations.ts';

export default defineOperation({
  path: '/v2/organizations/update',
  auth: 'apiKey',
  summary: 'Renames organizations and merges their metadata; a missing id is reported per item.',
  input: organizationsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Organization(s) updated successfully.', data: await updateOrganizations(ctx.app, ctx.scope, input.organizations) };
  },
});
