import { CRDT_WRITE_MISSING, crdtWriteInput } from '../../../shared/schemas/crdt.ts';
import { defineOperation } from '../../http/operation.ts';
import { addCrdt } from '../../services/crdt.ts';

export default defineOperation({
  path: '/v2/crdt/add',
  auth: 'apiKey',
  summary: "Creates an editor's Yjs document (text, map, array or xml) with the given content; ALREADY_EXISTS when there is one.",
  input: crdtWriteInput,
  missingMessages: CRDT_WRITE_MISSING,
  async handler(input, ctx) {
    await addCrdt(ctx.app, ctx.scope, input);
    return { message: 'CRDT data added successfully.' };
  },
});
