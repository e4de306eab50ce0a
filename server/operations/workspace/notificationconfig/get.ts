import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describeNotificationConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/notificationconfig/get',
  auth: 'apiKey',
  summary: "The API key's in-app notification settings: useNotificationService and the trigger switches (notificationServiceConfig.triggers).",
  input: z.object({}),
  handler(_input, ctx) {
    return { message: 'Notification configuration retrieved successfully.', data: describeNotificationConfig(ctx.apiKey) };
  },
});
