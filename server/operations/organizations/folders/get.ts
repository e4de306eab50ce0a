import { foldersGetInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { folderTree } from '../../../services/folders.ts';

export default defineOperation({
  path: '/v2/organizations/folders/get',
  auth: 'apiKey',
  summary: 'A folder (or all top-level folders) with subfolders nested as subFolders, down to maxDepth levels.',
  input: foldersGetInput,
  async handler(input, ctx) {
    return { message: 'Folders retrieved successfully.', data: await folderTree(ctx.app, ctx.scope, input.organizationId, input.folderId, input.maxDepth) };
  },
});
