import { z } from 'zod';
import { defineOperation } from '../../http/operation.ts';
import { describeWorkspace } from '../../services/workspaces.ts';
import { workspaceAnswer } from '../../../shared/schemas/answers.ts';

export default defineOperation({
  path: '/v2/workspace/get',
  auth: 'workspace',
  summary: 'The calling workspace: owner, auth token and API key list.',
  input: z.object({}),
  output: workspaceAnswer,
  async handler(_input, ctx) {
    return { message: 'Workspace retrieved successfully', data: await describeWorkspace(ctx.app, ctx.workspace) };
  },
});
