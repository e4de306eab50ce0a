import { activityConfigUpdateInput } from '../../../../shared/schemas/apikey.ts';
import { defineOperation } from '../../../http/operation.ts';
import { describeActivityConfig } from '../../../services/apikeys.ts';
import { updateActivityConfig } from '../../../services/workspace-config.ts';

export default defineOperation({
  path: '/v2/workspace/activityconfig/update',
  auth: 'apiKey',
  summary:
    "Turns the API key's activity log service on or off (activityServiceConfig.isEnabled; while off, activities/add is refused) or sets its enabledTime; partial.",
  input: activityConfigUpdateInput,
  async handler(input, ctx) {
    const row = await updateActivityConfig(ctx.app, ctx.scope, ctx.apiKey, input);
    return { message: 'Activity logs configuration updated successfully.', data: describeActivityConfig(row) };
  },
});
