import { documentsDeleteInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { deleteDocuments } from '../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/delete',
  auth: 'apiKey',
  summary: 'Deletes documents with their memberships and data; all or none.',
  input: documentsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Document(s) deleted successfully.', data: await deleteDocuments(ctx.app, ctx.scope, input.organizationId, input.documentIds) };
  },
});
