import { organizationsDeleteInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteOrganizations } from '../../services/organizations.ts';

export default defineOperation({
  path: '/v2/organizations/delete',
  auth: 'apiKey',
  summary: 'Deletes organizations with everything in them (folders, documents, memberships, groups).',
  input: organizationsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Organization(s) deleted successfully.', data: await deleteOrganizations(ctx.app, ctx.scope, input.organizationIds) };
  },
});
