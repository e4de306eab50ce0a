import { workspaceCreateInput } from '../../../shared/schemas/workspace.ts';
import { invalid, resourceExhausted } from '../../errors.ts';
import { isDisposableEmail } from '../../services/resources.ts';
import { defineOperation } from '../../http/operation.ts';
import { createWorkspaceForOwner, describeWorkspace } from '../../services/workspaces.ts';
import { workspaceAnswer } from '../../../shared/schemas/answers.ts';

const RATE_LIMITED = 'Rate limit exceeded for this endpoint. Try again later.';

export default defineOperation({
  path: '/v2/workspace/create',
  auth: 'public',
  summary: 'Creates a workspace (free plan) with a default testing API key; rate-limited per client and per e-mail.',
  input: workspaceCreateInput,
  output: workspaceAnswer,
  async handler(input, ctx) {
    const { limiter, config } = ctx.app;
    if (isDisposableEmail(input.ownerEmail)) throw invalid('This email domain is not supported.');
    if (!limiter.hit(`workspace-create-ip:${ctx.clientIp}`, config.rateLimits.workspaceCreatePerIp)) throw resourceExhausted(RATE_LIMITED);
    if (!limiter.hit(`workspace-create-email:${input.ownerEmail.toLowerCase()}`, config.rateLimits.workspaceCreatePerEmail)) {
      throw resourceExhausted(RATE_LIMITED);
    }
    const workspace = await createWorkspaceForOwner(ctx.app, input);
    return { message: 'Workspace created successfully', data: await describeWorkspace(ctx.app, workspace) };
  },
});
