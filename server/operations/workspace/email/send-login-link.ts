import { sendLoginLinkInput } from '../../../../shared/schemas/workspace.ts';
import { defineOperation } from '../../../http/operation.ts';
import { sendLoginLink } from '../../../services/login-links.ts';

export default defineOperation({
  path: '/v2/workspace/email/send-login-link',
  auth: 'public',
  summary: "E-mails a workspace owner a one-time sign-in link that leads to `continueUrl` (the console's own origin or localhost).",
  input: sendLoginLinkInput,
  async handler(input, ctx) {
    await sendLoginLink(ctx.app, input, ctx.clientIp);
    return { message: 'Login link sent successfully', data: null };
  },
});
