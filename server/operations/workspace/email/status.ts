import { emailStatusInput } from '../../../../shared/schemas/workspace.ts';
import { defineOperation } from '../../../http/operation.ts';
import { emailStatus } from '../../../services/login-links.ts';

export default defineOperation({
  path: '/v2/workspace/email/status',
  auth: 'public',
  summary: "Whether a workspace owner's e-mail is verified (by opening a login link).",
  input: emailStatusInput,
  async handler(input, ctx) {
    const verified = await emailStatus(ctx.app, input.ownerEmail);
    return {
      message: verified ? 'Email verified and workspace reactivated' : 'Email not yet verified',
      data: { ownerEmail: input.ownerEmail.toLowerCase(), verified },
    };
  },
});
