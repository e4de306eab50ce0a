import { z } from 'zod';
import { defineOperation } from '../../http/operation.ts';
import { describeWorkspace } from '../../services/workspaces.ts';

export default defineOperation({
  path: '/v2/workspace/get',
  auth: 'workspace',
  summary: 'The calling workspace: owner, auth token and API key list.',
  input: z.object({}),
  async handler(_input, ctx) {
    return { message: 'Workspace retrieved successfully', data: describeWorkspace(ctx.app, ctx.workspace) };
  },
});
