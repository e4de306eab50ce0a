import { activitiesGetInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { getActivities } from '../../services/activities.ts';

export default defineOperation({
  path: '/v2/activities/get',
  auth: 'apiKey',
  summary: 'Activity records filtered by document, target, features, action types, user or ids; newest first unless order asc.',
  input: activitiesGetInput,
  cache: 'read',
  async handler(input, ctx) {
    const page = await getActivities(ctx.app, ctx.scope, input);
    return { message: 'Activity(s) retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
