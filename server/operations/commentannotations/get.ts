import { annotationsGetInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { getAnnotations } from '../../services/comments.ts';

export default defineOperation({
  path: '/v2/commentannotations/get',
  auth: 'apiKey',
  summary: 'Comment annotations with their comments, by document(s), location, author, mention, status or ids; private ones only for readers who may see them.',
  input: annotationsGetInput,
  async handler(input, ctx) {
    const page = getAnnotations(ctx.app, ctx.apiKey.id, input);
    return { message: 'Annotation(s) fetched successfully.', data: page.items, pageToken: page.pageToken };
  },
});
