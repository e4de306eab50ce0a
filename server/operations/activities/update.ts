import { activitiesUpdateInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateActivities } from '../../services/activities.ts';

export default defineOperation({
  path: '/v2/activities/update',
  auth: 'apiKey',
  summary: 'Updates changes, entity data, display template and icon of activity records, per id.',
  input: activitiesUpdateInput,
  async handler(input, ctx) {
    return { message: 'Activity(s) updated successfully.', data: await updateActivities(ctx.app, ctx.scope, input) };
  },
});
