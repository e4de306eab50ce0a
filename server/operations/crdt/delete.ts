import { crdtDeleteInput } from '../../../shared/schemas/crdt.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteCrdt } from '../../services/crdt.ts';

export default defineOperation({
  path: '/v2/crdt/delete',
  auth: 'apiKey',
  summary: "Deletes the given editors' documents (or all of the document's), disconnecting their clients.",
  input: crdtDeleteInput,
  async handler(input, ctx) {
    return { message: 'CRDT data deleted successfully.', data: await deleteCrdt(ctx.app, ctx.scope, input) };
  },
});
