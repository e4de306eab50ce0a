import { commentsGetInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getComments } from '../../../services/comment-threads.ts';

export default defineOperation({
  path: '/v2/commentannotations/comments/get',
  auth: 'apiKey',
  summary: 'The comments of an annotation, with their reactions.',
  input: commentsGetInput,
  async handler(input, ctx) {
    return { message: 'Comments retrieved successfully.', data: await getComments(ctx.app, ctx.scope, input) };
  },
});
