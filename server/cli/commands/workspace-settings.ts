import { describeSettings, findDefaultWorkspace, findWorkspace, updateWorkspaceSettings } from '../../services/workspaces.ts';
import type { AppContext } from '../../context.ts';
import { WORKSPACE_PLANS } from '../../../shared/schemas/workspace.ts';
import { CliError, type Command } from '../command.ts';
import {
  DATA_DIR_HELP,
  DATA_DIR_OPTIONS,
  JSON_OPTION,
  loadConfig,
  parseChoice,
  parseOnOff,
  parseOptions,
  parseWholeNumber,
  printResult,
  withDataDir,
} from '../options.ts';

const NAME = 'workspace settings';

export function settingsLine(r: ReturnType<typeof describeSettings>): string {
  return `${r.workspaceId}  ${r.name}  owner=${r.ownerEmail}  plan=${r.plan}  selfServeProduction=${r.selfServeProduction}  maxProductionKeys=${r.maxProductionKeys}${r.isDefault ? '  (default)' : ''}`;
}

/** The workspace named by --workspace, or the default one made at first start. */
/** The workspace a command names (or the default one) and its scope. */
async function defaultWorkspace(app: AppContext) {
  const row = await findDefaultWorkspace(app);
  return row && findWorkspace(app, row.id);
}

export async function chosenWorkspace(app: AppContext, workspaceId: string | undefined) {
  const workspace = workspaceId ? await findWorkspace(app, workspaceId) : await defaultWorkspace(app);
  if (!workspace)
    throw new CliError(
      workspaceId ? `No workspace ${workspaceId}; see npx hearth workspace list` : 'No default workspace yet: start the server once (npm start)',
      1,
    );
  return workspace;
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth workspace settings [options]

Shows a workspace's plan and production-key settings; with any of --plan, --self-serve,
--max-production-keys, changes them first. Safe while the server runs (the API reads them per request).

Options:
  --workspace ID          the workspace (default: the one made at first start)
  --plan free|paid        production keys need a paid plan
  --self-serve on|off     may the workspace create production keys itself
  --max-production-keys N
${DATA_DIR_HELP}
  --json                  { workspaceId, name, ownerEmail, plan, selfServeProduction, maxProductionKeys, isDefault }

Example:
  hearth workspace settings --workspace ws_123 --plan paid --self-serve on --max-production-keys 5
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, {
      ...DATA_DIR_OPTIONS,
      ...JSON_OPTION,
      workspace: { type: 'string' },
      plan: { type: 'string' },
      'self-serve': { type: 'string' },
      'max-production-keys': { type: 'string' },
    });
    const changes = {
      plan: parseChoice('plan', values.plan, WORKSPACE_PLANS),
      selfServeProduction: parseOnOff('self-serve', values['self-serve']),
      maxProductionKeys: parseWholeNumber('max-production-keys', values['max-production-keys']),
    };
    const config = loadConfig(io, values);
    const settings = await withDataDir(config, async (app) => {
      const { scope } = await chosenWorkspace(app, values.workspace);
      return describeSettings(await updateWorkspaceSettings(app, scope, changes));
    });
    printResult(io, values.json, settings, () => settingsLine(settings));
  },
};
