import { recordingsDeleteInput } from '../../../shared/schemas/recordings.ts';
import { defineOperation } from '../../http/operation.ts';
import { deleteRecordings } from '../../services/recordings.ts';

export default defineOperation({
  path: '/v2/recordings/delete',
  auth: 'apiKey',
  summary: 'Deletes recordings with their attachments.',
  input: recordingsDeleteInput,
  async handler(input, ctx) {
    return { message: 'Recording(s) deleted successfully.', data: await deleteRecordings(ctx.app, ctx.scope, input) };
  },
});
