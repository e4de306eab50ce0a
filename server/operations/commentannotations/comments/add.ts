import { commentsAddInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addComments } from '../../../services/comment-threads.ts';

export default defineOperation({
  path: '/v2/commentannotations/comments/add',
  auth: 'apiKey',
  summary: 'Adds comments to an annotation; returns their ids.',
  input: commentsAddInput,
  async handler(input, ctx) {
    return { message: 'Comment(s) added successfully.', data: await addComments(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
