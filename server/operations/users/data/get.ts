import { userDataGetInput } from '../../../../shared/schemas/feed.ts';
import { defineOperation } from '../../../http/operation.ts';
import { exportUserData } from '../../../services/user-data.ts';

export default defineOperation({
  path: '/v2/users/data/get',
  auth: 'apiKey',
  summary: 'Everything of one user in one organization (profile, comments, reactions, recordings, notifications), 100 items per feature per page.',
  input: userDataGetInput,
  async handler(input, ctx) {
    const page = await exportUserData(ctx.app, ctx.scope, input);
    return { message: 'Data fetched successfully.', data: page.data, nextPageToken: page.nextPageToken };
  },
});
