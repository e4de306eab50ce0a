import { reactionsDeleteInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteReactions } from '../../services/reactions.ts';

export default defineOperation({
  path: '/v2/reactions/delete',
  auth: 'apiKey',
  summary: 'Deletes reactions, per id.',
  input: reactionsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Reaction(s) deleted successfully.', data: await deleteReactions(ctx.app, ctx.scope, input) };
  },
});
