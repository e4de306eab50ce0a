import { annotationsDeleteInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteAnnotations } from '../../services/comment-annotations.ts';

export default defineOperation({
  path: '/v2/commentannotations/delete',
  auth: 'apiKey',
  summary: 'Deletes annotations with their comments and reactions.',
  input: annotationsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Annotations deleted successfully.', data: await deleteAnnotations(ctx.app, ctx.scope, input) };
  },
});
