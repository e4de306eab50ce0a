import { annotationsUpdateInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateAnnotations } from '../../services/comment-annotations.ts';

export default defineOperation({
  path: '/v2/commentannotations/update',
  auth: 'apiKey',
  summary:
    "Changes status, priority, assignment, location, context, visibility or resolution of the annotations get's filters select (at most 1,000), and puts new users in old ones' places (updateUsers).",
  input: annotationsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Annotations updated successfully.', data: await updateAnnotations(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
