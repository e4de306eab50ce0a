import { findWorkspaceKey, listAuthTokens } from '../../services/apikeys.ts';
import { listWorkspaces } from '../../services/workspaces.ts';
import type { AppContext } from '../../context.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, withDataDir } from '../options.ts';

const NAME = 'apikey tokens';

/** The key in whichever workspace holds it (an operator knows the key's id, not always its workspace). */
async function findKey(app: AppContext, apiKeyId: string) {
  for (const workspace of await listWorkspaces(app)) {
    try {
      return await findWorkspaceKey(app, app.storage.workspaces.scopeOf(workspace), apiKeyId);
    } catch {
      // not this workspace's key
    }
  }
  throw new CliError(`No API key ${apiKeyId}; see npx hearth apikey list`, 1);
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth apikey tokens --api-key ID [options]

Prints the auth tokens of an API key (in plain text: they are the credentials a client sends), oldest first.
Safe while the server runs.

Options:
  --api-key ID            the key (required; see hearth apikey list)
${DATA_DIR_HELP}
  --json                  an array of { token, name, domains }

Example:
  hearth apikey tokens --api-key ABCDEFGHIJ0123456789 --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, 'api-key': { type: 'string' } });
    if (values['api-key'] === undefined) throw new CliError('apikey tokens needs --api-key ID');
    const apiKeyId = values['api-key'];
    const config = loadConfig(io, values);
    const tokens = await withDataDir(config, async (app) => listAuthTokens(app, (await findKey(app, apiKeyId)).scope));
    printResult(io, values.json, tokens, () =>
      tokens.length === 0
        ? 'No auth tokens'
        : tokens.map((t) => `${t.token}  ${t.name}${t.domains.length ? `  domains=${t.domains.join(',')}` : ''}`).join('\n'),
    );
  },
};
