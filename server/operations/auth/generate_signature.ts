import { generateSignatureInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { signPermissions } from '../../security/permission-signature.ts';

export default defineOperation({
  path: '/v2/auth/generate_signature',
  auth: 'apiKey',
  summary:
    "Signs a permission provider's decisions (HMAC-SHA256 under a secret of the API key, over the canonical form of docs/decisions.md) so that Hearth trusts them in the provider's answer. Call it from the app's backend only.",
  input: generateSignatureInput,
  // no output schema: a signature vouches only for the decisions it was made for, so the request monitor shows it
  async handler(input, ctx) {
    return { message: 'Signature generated successfully.', data: { signature: signPermissions(ctx.app.secrets, ctx.scope.apiKeyId, input.permissions) } };
  },
});
