import { notificationsGetInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { getNotifications } from '../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/get',
  auth: 'apiKey',
  summary: 'Notifications of a document (and location) or of a recipient, newest first unless order asc; keyset-paginated.',
  input: notificationsGetInput,
  // the answer depends on the stored data, the caller's key and the body only (page tokens are deterministic)
  cache: 'read',
  async handler(input, ctx) {
    const page = await getNotifications(ctx.app, ctx.scope, input);
    return { message: 'Notification(s) retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
