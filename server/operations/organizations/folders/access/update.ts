import { foldersAccessInput } from '../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { updateFolderAccess } from '../../../../services/folders.ts';

export default defineOperation({
  path: '/v2/organizations/folders/access/update',
  auth: 'apiKey',
  summary: "Sets folders' access type or inheritance; inheriting subfolders follow.",
  input: foldersAccessInput,
  async handler(input, ctx) {
    return { message: 'Updated access for folders successfully.', data: await updateFolderAccess(ctx.app, ctx.scope, input) };
  },
});
