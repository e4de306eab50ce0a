import { documentsAddInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addDocuments } from '../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/add',
  auth: 'apiKey',
  summary: 'Creates documents (in a folder if given); all or none: an existing id fails the call with per-id details.',
  input: documentsAddInput,
  async handler(input, ctx) {
    return { message: 'Document(s) added successfully.', data: await addDocuments(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
