import { userDataDeleteStatusInput } from '../../../../../shared/schemas/feed.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { erasureStatus } from '../../../../services/user-data.ts';

export default defineOperation({
  path: '/v2/users/data/delete/status',
  auth: 'apiKey',
  summary: 'The state of a user-data erasure: pending, in_progress, completed or failed.',
  input: userDataDeleteStatusInput,
  async handler(input, ctx) {
    return { message: 'User data deletion status retrieved successfully.', data: await erasureStatus(ctx.app, ctx.scope, input.jobId) };
  },
});
