import { foldersUpdateInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { updateFolders } from '../../../services/folders.ts';

export default defineOperation({
  path: '/v2/organizations/folders/update',
  auth: 'apiKey',
  summary: 'Renames and moves folders; a move recomputes ancestors and accessType for the whole subtree and refuses cycles.',
  input: foldersUpdateInput,
  async handler(input, ctx) {
    return { message: 'Folder Updated successfully.', data: await updateFolders(ctx.app, ctx.scope, input) };
  },
});
