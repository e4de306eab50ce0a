import { emailConfigUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeEmailConfig, updateEmailConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/emailconfig/update',
  auth: 'apiKey',
  summary:
    "Turns the API key's notification mail on or off (useEmailService) and sets its sender (fromEmail, fromCompany), templates and provider key; partial, an empty string removes a field.",
  input: emailConfigUpdateInput,
  async handler(input, ctx) {
    const row = await updateEmailConfig(ctx.app, ctx.scope, input);
    return { message: 'Email configuration updated successfully.', data: await describeEmailConfig(ctx.app, ctx.scope, row) };
  },
});
