import { annotationsReadInput } from '../../../../shared/schemas/comments.ts';
import { defineOperation } from '../../../http/operation.ts';
import { markAnnotationsRead } from '../../../services/comment-annotations.ts';

export default defineOperation({
  path: '/v2/commentannotations/read/update',
  auth: 'apiKey',
  summary: 'Marks annotations read for a user (what unread counts compare with).',
  input: annotationsReadInput,
  async handler(input, ctx) {
    return { message: 'Annotations marked as read successfully.', data: await markAnnotationsRead(ctx.app, ctx.scope, input) };
  },
});
