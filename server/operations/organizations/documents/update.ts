import { documentsUpdateInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { updateDocuments } from '../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/update',
  auth: 'apiKey',
  summary: 'Renames documents and merges their metadata; all or none: a missing id fails the call with per-id details.',
  input: documentsUpdateInput,
  async handler(input, ctx) {
    return { message: 'Document(s) updated successfully.', data: await updateDocuments(ctx.app, ctx.scope, input) };
  },
});
