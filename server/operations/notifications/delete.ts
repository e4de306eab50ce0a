import { notificationsDeleteInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteNotifications } from '../../services/notifications.ts';

export default defineOperation({
  path: '/v1/notifications/delete',
  aliases: ['/v2/notifications/delete'],
  auth: 'apiKey',
  summary: 'Deletes the notifications matching every filter given (document, location, recipient, ids).',
  input: notificationsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Notification(s) deleted successfully.', data: await deleteNotifications(ctx.app, ctx.scope, input) };
  },
});
