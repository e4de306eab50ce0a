import { apiKeyCreateInput } from '../../../shared/schemas/apikey.ts';
import { createApiKey, listAuthTokens } from '../../services/apikeys.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, withDataDir } from '../options.ts';
import { firstIssue } from './workspace-create.ts';
import { chosenWorkspace } from './workspace-settings.ts';

const NAME = 'apikey create';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth apikey create [options]

Creates an API key in a workspace, with one auth token, under the same rules as
/v2/workspace/apikey/create: a production key needs a paid plan, self-serve production on, and room under
the workspace's maximum (change them with hearth workspace settings). Safe while the server runs.

Options:
  --workspace ID          the workspace (default: the one made at first start)
  --type testing|production   default testing
  --name NAME             the key's name (default "Test API Key" / "Production API Key")
  --owner-email EMAIL     default: the workspace owner's
  --allowed-domain DOMAIN may be repeated
${DATA_DIR_HELP}
  --json                  { workspaceId, apiKey, apiKeyName, type, ownerEmail, authToken }

Example:
  hearth apikey create --type production --name "Staging" --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, {
      ...DATA_DIR_OPTIONS,
      ...JSON_OPTION,
      workspace: { type: 'string' },
      type: { type: 'string' },
      name: { type: 'string' },
      'owner-email': { type: 'string' },
      'allowed-domain': { type: 'string', multiple: true },
    });
    const config = loadConfig(io, values);
    const created = await withDataDir(config, async (app) => {
      const { workspace, scope } = await chosenWorkspace(app, values.workspace);
      const input = apiKeyCreateInput.safeParse({
        ownerEmail: values['owner-email'] ?? workspace.ownerEmail,
        type: values.type ?? 'testing',
        apiKeyName: values.name,
        allowedDomains: values['allowed-domain'],
      });
      if (!input.success) {
        throw new CliError(firstIssue(input.error, { ownerEmail: '--owner-email', type: '--type', apiKeyName: '--name', allowedDomains: '--allowed-domain' }));
      }
      const row = await createApiKey(app, scope, input.data);
      const [token] = await listAuthTokens(app, app.storage.keys.scopeOf(row));
      return { workspaceId: workspace.id, apiKey: row.id, apiKeyName: row.name, type: row.type, ownerEmail: row.ownerEmail, authToken: token?.token ?? null };
    });
    printResult(io, values.json, created, () =>
      [
        `Created ${created.type} API key "${created.apiKeyName}" in ${created.workspaceId}`,
        `  apiKey     ${created.apiKey}`,
        `  authToken  ${created.authToken ?? '(none)'}`,
      ].join('\n'),
    );
  },
};
