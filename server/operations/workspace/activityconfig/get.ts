import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { describeActivityConfig } from '../../../services/apikeys.ts';

export default defineOperation({
  path: '/v2/workspace/activityconfig/get',
  auth: 'apiKey',
  summary: "The API key's activity log service: whether activities/add is accepted (isEnabled, on by default) and since when (enabledTime).",
  input: z.object({}),
  handler(_input, ctx) {
    return { message: 'Activity logs configuration retrieved successfully.', data: describeActivityConfig(ctx.apiKey) };
  },
});
