import { activitiesDeleteInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteActivities } from '../../services/activities.ts';

export default defineOperation({
  path: '/v2/activities/delete',
  auth: 'apiKey',
  summary: 'Deletes activity records by document, target entity and/or ids.',
  input: activitiesDeleteInput,
  async handler(input, ctx) {
    return { message: 'Activity(s) deleted successfully.', data: await deleteActivities(ctx.app, ctx.scope, input) };
  },
});
