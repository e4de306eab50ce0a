import { notificationsUpdateInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateNotifications } from '../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/update',
  auth: 'apiKey',
  summary: 'Edits notification content and marks them read or unread per user.',
  input: notificationsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Notification(s) updated successfully.', data: await updateNotifications(ctx.app, ctx.scope, input) };
  },
});
