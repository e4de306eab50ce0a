import { documentsDisableInput } from '../../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../../http/operation.ts';
import { setDocumentsField } from '../../../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/access/disablestate/update',
  auth: 'apiKey',
  summary: 'Disables or re-enables documents: a disabled document is read-only for everyone.',
  input: documentsDisableInput,
  async handler(input, ctx) {
    const data = await setDocumentsField(
      ctx.app,
      ctx.scope,
      input.organizationId,
      input.documentIds,
      { disabled: input.disabled },
      'Document disable state updated.',
    );
    return { message: 'Updated disable state for documents successfully.', data };
  },
});
