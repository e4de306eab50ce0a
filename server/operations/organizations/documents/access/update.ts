import { documentsAccessInput } from '../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { setDocumentsField } from '../../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/access/update',
  auth: 'apiKey',
  summary: "Sets documents' access type: public, organizationPrivate or restricted.",
  input: documentsAccessInput,
  async handler(input, ctx) {
    const data = await setDocumentsField(
      ctx.app,
      ctx.scope,
      input.organizationId,
      input.documentIds,
      { accessType: input.accessType },
      'Document access type updated.',
    );
    return { message: 'Updated access for documents successfully.', data };
  },
});
