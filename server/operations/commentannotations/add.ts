import { annotationsAddInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { addAnnotations } from '../../services/comment-annotations.ts';

export default defineOperation({
  path: '/v2/commentannotations/add',
  auth: 'apiKey',
  summary: 'Adds comment annotations with their comments; mentions notify the tagged users; activities are recorded.',
  input: annotationsAddInput,
  async handler(input, ctx) {
    return { message: 'Comment Annotation(s) added successfully.', data: await addAnnotations(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
