import { notificationsGetInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { getNotifications } from '../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/get',
  auth: 'apiKey',
  summary: 'Notifications of a document (and location) or of a recipient, newest first unless order asc; keyset-paginated.',
  input: notificationsGetInput,
  async handler(input, ctx) {
    const page = getNotifications(ctx.app, ctx.apiKey.id, input);
    return { message: 'Notification(s) retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
