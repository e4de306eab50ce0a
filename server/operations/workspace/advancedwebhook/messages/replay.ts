import { messageReplayInput } from '../../../../../shared/schemas/webhooks.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { replayMessage } from '../../../../services/webhooks.ts';

export default defineOperation({
  path: '/v2/workspace/advancedwebhook/messages/replay',
  auth: 'apiKey',
  summary: 'Hearth: sends a message again now (same webhook-id), to one endpoint or to every endpoint it went to.',
  input: messageReplayInput,
  async handler(input, ctx) {
    return { message: 'Advanced webhook message replay started.', data: await replayMessage(ctx.app, ctx.scope, input) };
  },
});
