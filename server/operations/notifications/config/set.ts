import { notificationConfigSetInput } from '../../../../shared/schemas/feed.ts';
import { defineOperation } from '../../../http/operation.ts';
import { setNotificationConfig } from '../../../services/notifications.ts';

export default defineOperation({
  path: '/v2/notifications/config/set',
  auth: 'apiKey',
  summary: "Sets users' notification channel settings for the organization or given documents.",
  input: notificationConfigSetInput,
  async handler(input, ctx) {
    return { message: 'User config set successfully.', data: await setNotificationConfig(ctx.app, ctx.scope, input) };
  },
});
