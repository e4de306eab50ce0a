import { annotationsGetInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { getAnnotations } from '../../services/comment-annotations.ts';
import { groupByDocument } from '../../services/comment-presenters.ts';

export default defineOperation({
  path: '/v2/commentannotations/get',
  auth: 'apiKey',
  summary:
    'Comment annotations with their comments, by document(s), folder, location, author, mention, status, resolver, creation or update time, or ids, optionally grouped by document; private ones only for readers who may see them.',
  input: annotationsGetInput,
  async handler(input, ctx) {
    const page = await getAnnotations(ctx.app, ctx.scope, input);
    // grouped, in the hosted words of that variant (reference §3.9)
    if (input.groupByDocumentId) return { message: 'Annotations fetched successfully.', data: groupByDocument(page.items), pageToken: page.pageToken };
    return { message: 'Annotation(s) fetched successfully.', data: page.items, pageToken: page.pageToken };
  },
});
