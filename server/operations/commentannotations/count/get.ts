import { annotationsCountInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { countAnnotations } from '../../../services/comment-annotations.ts';

export default defineOperation({
  path: '/v2/commentannotations/count/get',
  auth: 'apiKey',
  summary: 'Per document, the annotations a user can see (total) and those with news since the user last read them (unread).',
  input: annotationsCountInput,
  async handler(input, ctx) {
    return { message: 'Comment count retrieved successfully.', data: await countAnnotations(ctx.app, ctx.scope, input) };
  },
});
