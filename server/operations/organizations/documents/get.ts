import { documentsGetInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { getDocuments } from '../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/get',
  auth: 'apiKey',
  summary: 'Documents by ids (at most 30) or by organization and folder, keyset-paginated (pageSize default 1000).',
  input: documentsGetInput,
  async handler(input, ctx) {
    const page = await getDocuments(ctx.app, ctx.scope, input);
    return { message: 'Document(s) retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
