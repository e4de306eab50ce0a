import { organizationsGetInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { listOrganizations } from '../../services/organizations.ts';

export default defineOperation({
  path: '/v2/organizations/get',
  auth: 'apiKey',
  summary: 'Lists organizations (all, or the given ids) by id, keyset-paginated with nextPageToken.',
  input: organizationsGetInput,
  async handler(input, ctx) {
    const page = await listOrganizations(ctx.app, ctx.scope, input);
    return { message: 'Organization(s) retrieved successfully.', data: page.items, nextPageToken: page.pageToken };
  },
});
