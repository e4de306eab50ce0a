import { recordingsAddInput } from '../../../shared/schemas/recordings.ts';
import { defineOperation } from '../../http/operation.ts';
import { addRecording } from '../../services/recordings.ts';

export default defineOperation({
  path: '/v2/recordings/add',
  auth: 'apiKey',
  summary: 'Adds a recording (or a new version of one) with base64 attachments, checked and stored under DATA_DIR.',
  input: recordingsAddInput,
  async handler(input, ctx) {
    return { message: 'Recording added successfully.', data: await addRecording(ctx.app, ctx.scope, ctx.apiKey, input) };
  },
});
