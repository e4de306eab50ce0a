import { CRDT_GET_MISSING, crdtGetInput } from '../../../shared/schemas/crdt.ts';
import { defineOperation } from '../../http/operation.ts';
import { getCrdt } from '../../services/crdt.ts';

export default defineOperation({
  path: '/v2/crdt/get',
  auth: 'apiKey',
  summary: 'The content of one editor, or of every editor of the document, decoded by type.',
  input: crdtGetInput,
  missingMessages: CRDT_GET_MISSING,
  async handler(input, ctx) {
    return { message: 'CRDT data retrieved successfully.', data: await getCrdt(ctx.app, ctx.scope, input) };
  },
});
