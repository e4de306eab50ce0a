import { domainsInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { removeAllowedDomains } from '../../../services/domains.ts';

export default defineOperation({
  path: '/v2/workspace/domains/delete',
  auth: 'apiKey',
  summary: "Removes domains from the API key's allowed domains; when none is left, pages of any origin may open its documents.",
  input: domainsInput,
  async handler(input, ctx) {
    return { message: 'Domain(s) removed successfully from allowed domains.', data: await removeAllowedDomains(ctx.app, ctx.scope, input.domains) };
  },
});
