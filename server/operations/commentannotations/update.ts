import { annotationsUpdateInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateAnnotations } from '../../services/comments.ts';

export default defineOperation({
  path: '/v2/commentannotations/update',
  auth: 'apiKey',
  summary: 'Updates status, priority, assignment, location, context, visibility or resolution of annotations.',
  input: annotationsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Annotations updated successfully.', data: updateAnnotations(ctx.app, ctx.apiKey, input) };
  },
});
