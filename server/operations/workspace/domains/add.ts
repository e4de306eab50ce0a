import { domainsInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addAllowedDomains } from '../../../services/domains.ts';

export default defineOperation({
  path: '/v2/workspace/domains/add',
  auth: 'apiKey',
  summary: "Adds domains (host, *.host for its subdomains, host:port for one port) to the API key's allowed domains; those already there are skipped.",
  input: domainsInput,
  async handler(input, ctx) {
    const result = await addAllowedDomains(ctx.app, ctx.scope, input.domains);
    const message = `Domain(s) added successfully to allowed domains.${result.skipped.length > 0 ? ' Skipped existing domains.' : ''}`;
    return { message, data: result };
  },
});
