import { notificationsAddInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { addNotification } from '../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/add',
  auth: 'apiKey',
  summary: 'Adds a notification for everyone with access to the document (notifyAll) or the named users; idempotent with notificationId.',
  input: notificationsAddInput,
  async handler(input, ctx) {
    const outcome = await addNotification(ctx.app, ctx.scope, ctx.apiKey, input);
    const message = outcome.created ? 'Notification added successfully.' : 'Notification already exists.';
    return { message: 'Notification added successfully.', data: { success: true, message, notificationId: outcome.id } };
  },
});
