import { notificationConfigUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeNotificationConfig } from '../../../services/apikeys.ts';
import { updateNotificationConfig } from '../../../services/workspace-config.ts';

export default defineOperation({
  path: '/v2/workspace/notificationconfig/update',
  auth: 'apiKey',
  summary:
    "Sets the API key's useNotificationService and merges trigger switches into notificationServiceConfig.triggers; turning the service on seeds the default triggers when the key has none.",
  input: notificationConfigUpdateInput,
  async handler(input, ctx) {
    const row = await updateNotificationConfig(ctx.app, ctx.scope, input);
    return { message: 'Notification configuration updated successfully.', data: describeNotificationConfig(row) };
  },
});
