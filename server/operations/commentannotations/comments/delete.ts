import { commentsDeleteInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { deleteComments } from '../../../services/comment-threads.ts';

export default defineOperation({
  path: '/v2/commentannotations/comments/delete',
  auth: 'apiKey',
  summary: 'Deletes comments of an annotation, per id.',
  input: commentsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Comments(s) deleted successfully.', data: await deleteComments(ctx.app, ctx.scope, input) };
  },
});
