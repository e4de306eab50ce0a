import { notificationConfigGetInput } from '../../../../shared/schemas/feed.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getNotificationConfig } from '../../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/config/get',
  auth: 'apiKey',
  summary: "A user's inbox, e-mail and slack settings (ALL, MINE, NONE) per document and for the organization.",
  input: notificationConfigGetInput,
  async handler(input, ctx) {
    return { message: 'User config fetched successfully.', data: await getNotificationConfig(ctx.app, ctx.scope, input) };
  },
});
