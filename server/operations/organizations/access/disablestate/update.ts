import { organizationsDisableInput } from '../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { setOrganizationsDisabled } from '../../../../services/organizations.ts';

export default defineOperation({
  path: '/v2/organizations/access/disablestate/update',
  auth: 'apiKey',
  summary: 'Disables or re-enables organizations: a disabled organization is read-only for everyone.',
  input: organizationsDisableInput,
  async handler(input, ctx) {
    return {
      message: 'Updated disable state for Organization(s) successfully.',
      data: await setOrganizationsDisabled(ctx.app, ctx.scope, input.organizationIds, input.disabled),
    };
  },
});
