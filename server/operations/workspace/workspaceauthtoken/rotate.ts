import { z } from 'zod';
import { defineOperation } from '../../../http/operation.ts';
import { rotateWorkspaceCredentials } from '../../../services/bootstrap.ts';
import { workspaceAuthTokenAnswer } from '../../../../shared/schemas/answers.ts';

// Not an operation of the hosted service (reference.md has none for the workspace's own token; its
// workspace/authtoken/reset replaces an API key's): named after the workspace auth token it replaces.
export default defineOperation({
  path: '/v2/workspace/workspaceauthtoken/rotate',
  auth: 'workspace',
  summary:
    "Replaces the calling workspace's auth token with a new one and answers it; the old value is refused at once, on every instance (the default workspace's credentials.json is rewritten).",
  // strict: a caller who passes a token of its own (or anything) learns that it is not taken
  input: z.strictObject({}),
  output: workspaceAuthTokenAnswer,
  async handler(_input, ctx) {
    const authToken = await rotateWorkspaceCredentials(ctx.app, ctx.workspaceScope);
    return { message: 'Workspace auth token rotated successfully.', data: { workspaceId: ctx.workspace.id, authToken } };
  },
});
