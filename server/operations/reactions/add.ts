import { reactionsAddInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { addReaction } from '../../services/reactions.ts';

export default defineOperation({
  path: '/v2/reactions/add',
  auth: 'apiKey',
  summary: 'Adds a reaction to a comment (once per user and icon); records a reaction.add activity.',
  input: reactionsAddInput,
  async handler(input, ctx) {
    const { reaction, created } = await addReaction(ctx.app, ctx.scope, input);
    return { message: created ? 'Reaction added successfully.' : 'Reaction already exists.', data: reaction };
  },
});
