import { rotateWorkspaceCredentials } from '../../services/bootstrap.ts';
import type { Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, withDataDir } from '../options.ts';
import { chosenWorkspace } from './workspace-settings.ts';

const NAME = 'workspace rotate-token';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth workspace rotate-token [options]

Replaces a workspace's auth token (the x-<brand>-workspace-auth-token credential) with a new one and prints it.
The old value is refused from the next call on, by a running server and by every instance of a cluster.
For the default workspace, DATA_DIR/credentials.json is rewritten. Safe while the server runs.
The same as POST /v2/workspace/workspaceauthtoken/rotate and the admin UI's Settings page.

Options:
  --workspace ID          the workspace (default: the one made at first start)
${DATA_DIR_HELP}
  --json                  { workspaceId, workspaceAuthToken }

Example:
  hearth workspace rotate-token --workspace workspace_abc123 --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, workspace: { type: 'string' } });
    const config = loadConfig(io, values);
    const rotated = await withDataDir(config, async (app) => {
      const { workspace, scope } = await chosenWorkspace(app, values.workspace);
      return { workspaceId: workspace.id, workspaceAuthToken: await rotateWorkspaceCredentials(app, scope) };
    });
    printResult(io, values.json, rotated, () => `${rotated.workspaceId}  workspaceAuthToken=${rotated.workspaceAuthToken}`);
  },
};
