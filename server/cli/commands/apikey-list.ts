import { type describeApiKey, listApiKeys } from '../../services/apikeys.ts';
import type { Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, withDataDir } from '../options.ts';
import { chosenWorkspace } from './workspace-settings.ts';

const NAME = 'apikey list';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth apikey list [options]

Lists a workspace's API keys, oldest first. Safe while the server runs.

Options:
  --workspace ID          the workspace (default: the one made at first start)
${DATA_DIR_HELP}
  --json                  an array of { apiKey, apiKeyName, type, ownerEmail, persistenceDBRegion,
                          realtimeDBRegion, allowedDomains, createdAt, updatedAt }

Example:
  hearth apikey list --workspace workspace_abc --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, workspace: { type: 'string' } });
    const config = loadConfig(io, values);
    const keys = await withDataDir(config, async (app) => {
      const { scope } = await chosenWorkspace(app, values.workspace);
      const all: ReturnType<typeof describeApiKey>[] = [];
      let pageToken: string | undefined;
      do {
        const page = await listApiKeys(app, scope, { pageSize: 100, pageToken });
        all.push(...page.items);
        pageToken = page.pageToken ?? undefined;
      } while (pageToken);
      return all;
    });
    printResult(io, values.json, keys, () =>
      keys.length === 0 ? 'No API keys' : keys.map((k) => `${k.apiKey}  ${k.type.padEnd(10)}  ${k.apiKeyName}  owner=${k.ownerEmail}`).join('\n'),
    );
  },
};
