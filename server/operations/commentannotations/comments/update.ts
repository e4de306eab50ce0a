import { commentsUpdateInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { updateComments } from '../../../services/comment-threads.ts';

export default defineOperation({
  path: '/v2/commentannotations/comments/update',
  auth: 'apiKey',
  summary: 'Edits comments of an annotation, per id.',
  input: commentsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Comment updated successfully.', data: await updateComments(ctx.app, ctx.scope, input) };
  },
});
