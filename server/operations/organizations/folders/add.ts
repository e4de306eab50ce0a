import { foldersAddInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { addFolders } from '../../../services/folders.ts';

export default defineOperation({
  path: '/v2/organizations/folders/add',
  auth: 'apiKey',
  summary: 'Creates folders in order (a parent may come earlier in the same request); accessType set means not inherited.',
  input: foldersAddInput,
  async handler(input, ctx) {
    return { message: 'Folder created successfully.', data: await addFolders(ctx.app, ctx.scope, input) };
  },
});
