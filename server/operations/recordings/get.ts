import { recordingsGetInput } from '../../../shared/schemas/recordings.ts';
import { defineOperation } from '../../http/operation.ts';
import { getRecordings } from '../../services/recordings.ts';

export default defineOperation({
  path: '/v2/recordings/get',
  auth: 'apiKey',
  summary: 'Recordings of an organization or document, newest first, with attachment URLs; keyset-paginated.',
  input: recordingsGetInput,
  async handler(input, ctx) {
    const page = await getRecordings(ctx.app, ctx.scope, input);
    return { message: 'Recorder annotations retrieved successfully.', data: page.items, pageToken: page.pageToken };
  },
});
