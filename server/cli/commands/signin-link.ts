import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintSignInToken, signInLinkOf } from '../../admin/signin.ts';
import { createSecrets, loadMasterKey, masterKeyPath } from '../../security/secrets.ts';
import { runningServer } from '../../server-lock.ts';
import { CREDENTIALS_FILE } from '../../data-files.ts';
import type { Credentials } from '../../services/bootstrap.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult } from '../options.ts';

const NAME = 'signin-link';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth signin-link [options]

Prints a new one-time sign-in link for the admin UI of the server running on the data dir (the link printed at
start works once). Opening it signs the browser in as the default workspace, or as --workspace. Only who can
read the data dir (its master key and the running server's lock file) can make one. The link works once, for
12 hours, and only until that server stops.

Options:
  --workspace ID          sign in as this workspace (default: the one in credentials.json)
${DATA_DIR_HELP}
  --json                  { link, workspaceId }

Example:
  hearth signin-link --data-dir ./data
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, workspace: { type: 'string' } });
    const config = loadConfig(io, values);
    const running = runningServer(config.dataDir);
    if (!running?.bootId)
      throw new CliError(
        `No Hearth server is running on ${config.dataDir}: start it (npm start), then ask again; a running server prints its own link at start`,
        1,
      );
    const keyFile = masterKeyPath(config);
    if (!existsSync(keyFile)) throw new CliError(`${keyFile} is missing: the server's master key signs the link`, 1);
    let workspaceId = values.workspace;
    if (workspaceId === undefined) {
      const file = join(config.dataDir, CREDENTIALS_FILE);
      if (!existsSync(file)) throw new CliError(`${file} is missing: name the workspace with --workspace`, 1);
      workspaceId = (JSON.parse(readFileSync(file, 'utf8')) as Credentials).workspaceId;
    }
    const key = createSecrets(loadMasterKey(keyFile, { create: false }).key).derive('admin-sign-in');
    const link = signInLinkOf(running.url, mintSignInToken(key, running.bootId, workspaceId));
    printResult(io, values.json, { link, workspaceId }, () => `${link}\n(one-time: opens the admin UI as ${workspaceId})`);
  },
};
