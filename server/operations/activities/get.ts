import { activitiesGetInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { getActivities } from '../../services/activities.ts';

export default defineOperation({
  path: '/v2/activities/get',
  auth: 'apiKey',
  summary: 'Activity records filtered by document, target, features, action types, user or ids; newest first unless order asc.',
  input: activitiesGetInput,
  cache: 'read',
  handler(input, ctx) {
    const page = getActivities(ctx.app, ctx.apiKey.id, input);
    return { message: 'Activity(s) retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
