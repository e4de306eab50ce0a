import { reactionsGetInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { getReactions } from '../../services/reactions.ts';

export default defineOperation({
  path: '/v2/reactions/get',
  auth: 'apiKey',
  summary: 'The reactions on an annotation or one of its comments.',
  input: reactionsGetInput,
  async handler(input, ctx) {
    return { message: 'Reactions retrieved successfully.', data: await getReactions(ctx.app, ctx.scope, input) };
  },
});
