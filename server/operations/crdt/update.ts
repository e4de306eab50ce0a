import { CRDT_WRITE_MISSING, crdtWriteInput } from '../../../shared/schemas/crdt.ts';
import { defineOperation } from '../../http/operation.ts';
import { updateCrdt } from '../../services/crdt.ts';

export default defineOperation({
  path: '/v2/crdt/update',
  auth: 'apiKey',
  summary: "Replaces an editor's content through CRDT operations on the live document (clients receive them as updates).",
  input: crdtWriteInput,
  missingMessages: CRDT_WRITE_MISSING,
  async handler(input, ctx) {
    await updateCrdt(ctx.app, ctx.scope, input);
    return { message: 'CRDT data updated successfully.' };
  },
});
