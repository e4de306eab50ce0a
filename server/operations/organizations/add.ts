import { organizationsAddInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { addOrganizations } from '../../services/organizations.ts';

export default defineOperation({
  path: '/v2/organizations/add',
  auth: 'apiKey',
  summary: 'Creates organizations; an existing id is reported per item.',
  input: organizationsAddInput,
  async handler(input, ctx) {
    return { message: 'Organization(s) added successfully.', data: await addOrganizations(ctx.app, ctx.scope, input.organizations) };
  },
});
