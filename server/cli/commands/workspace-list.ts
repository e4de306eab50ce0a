import { describeSettings, listWorkspaces } from '../../services/workspaces.ts';
import type { Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, withDataDir } from '../options.ts';
import { settingsLine } from './workspace-settings.ts';

const NAME = 'workspace list';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth workspace list [options]

Lists every workspace of the data dir, oldest first, with its plan and production-key settings.
Safe while the server runs.

Options:
${DATA_DIR_HELP}
  --json                  an array of { workspaceId, name, ownerEmail, plan, selfServeProduction,
                          maxProductionKeys, isDefault }

Example:
  hearth workspace list --data-dir ./data --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION });
    const config = loadConfig(io, values);
    const rows = await withDataDir(config, async (app) => (await listWorkspaces(app)).map(describeSettings));
    printResult(io, values.json, rows, () => rows.map(settingsLine).join('\n'));
  },
};
