import { userDataDeleteInput } from '../../../../shared/schemas/feed.ts';
import { defineOperation } from '../../../http/operation.ts';
import { startErasure } from '../../../services/user-data.ts';

export default defineOperation({
  path: '/v2/users/data/delete',
  auth: 'apiKey',
  summary: "Starts erasing a user's personal data everywhere in the API key (a background job that survives restarts); poll delete/status.",
  input: userDataDeleteInput,
  async handler(input, ctx) {
    const job = await startErasure(ctx.app, ctx.scope, input.userId);
    return { message: 'User data deletion started successfully.', data: { jobId: job.id, status: job.status } };
  },
});
