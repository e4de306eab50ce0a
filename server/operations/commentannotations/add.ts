import { annotationsAddInput } from '../../../shared/schemas/comments.ts';
import { defineOperation } from '../../http/operation.ts';
import { addAnnotations } from '../../services/comment-annotations.ts';
import { providerDocumentAccess } from '../../services/permission-provider.ts';

export default defineOperation({
  path: '/v2/commentannotations/add',
  auth: 'apiKey',
  summary: 'Adds comment annotations with their comments; mentions notify the tagged users; activities are recorded.',
  input: annotationsAddInput,
  async handler(input, ctx) {
    // verifyUserPermissions in the permission provider mode: the provider decides, asked before the write
    const authors = input.commentAnnotations.flatMap((a) => a.commentData.map((c) => c.from.userId));
    const authorAccess = input.verifyUserPermissions
      ? await providerDocumentAccess(ctx.app, ctx.scope, ctx.apiKey, input.organizationId, input.documentId, authors)
      : null;
    return {
      message: 'Comment Annotation(s) added successfully.',
      data: await addAnnotations(ctx.app, ctx.scope, ctx.apiKey, input, authorAccess ?? undefined),
    };
  },
});
