import { activitiesAddInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { addActivities } from '../../services/activities.ts';

export default defineOperation({
  path: '/v2/activities/add',
  auth: 'apiKey',
  summary: 'Adds custom or feature activity records; a given id overwrites the record with that id.',
  input: activitiesAddInput,
  async handler(input, ctx) {
    const ids = await addActivities(ctx.app, ctx.scope, input);
    return { message: 'Activity(s) added successfully.', data: { success: true, message: 'Activity(s) added successfully.', activityIds: ids } };
  },
});
