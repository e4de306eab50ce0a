import { documentsMoveInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { moveDocuments } from '../../../services/documents.ts';

export default defineOperation({
  path: '/v2/organizations/documents/move',
  auth: 'apiKey',
  summary: 'Moves documents into a folder (`root` for the top level); all or none.',
  input: documentsMoveInput,
  async handler(input, ctx) {
    await moveDocuments(ctx.app, ctx.scope, input);
    return { message: 'Documents moved successfully.' };
  },
});
