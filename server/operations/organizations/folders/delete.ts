import { foldersDeleteInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { deleteFolder } from '../../../services/folders.ts';

export default defineOperation({
  path: '/v2/organizations/folders/delete',
  auth: 'apiKey',
  summary: 'Deletes a folder with its subfolders, their documents and memberships.',
  input: foldersDeleteInput,
  async handler(input, ctx) {
    await deleteFolder(ctx.app, ctx.scope, input.organizationId, input.folderId);
    return { message: 'Folder deletion initiated successfully.', data: null };
  },
});
