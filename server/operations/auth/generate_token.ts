import { generateTokenInput } from '../../../shared/schemas/access.ts';
import { defineOperation } from '../../http/operation.ts';
import { generateUserToken } from '../../services/permissions.ts';
import { userTokenAnswer } from '../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/auth/generate_token',
  auth: 'apiKey',
  summary: 'Grants the given permissions and returns a signed JWT (48 h) that identifies the user to Hearth, e.g. on the CRDT websocket.',
  input: generateTokenInput,
  output: userTokenAnswer,
  async handler(input, ctx) {
    return { message: 'Token generated successfully.', data: { token: await generateUserToken(ctx.app, ctx.scope, input) } };
  },
});
