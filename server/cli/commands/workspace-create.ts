import type { z } from 'zod';
import { WORKSPACE_PLANS, workspaceCreateInput } from '../../../shared/schemas/workspace.ts';
import { findWorkspace, insertWorkspace, NEW_WORKSPACE_SETTINGS, type WorkspaceSettings } from '../../services/workspaces.ts';
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

const NAME = 'workspace create';

/** A zod failure as one line naming the flag. */
export function firstIssue(error: z.ZodError, flags: Record<string, string>): string {
  const issue = error.issues[0];
  const field = String(issue?.path[0] ?? '');
  return `${flags[field] ?? field}: ${issue?.message ?? 'invalid'}`;
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth workspace create --owner-email EMAIL [options]

Creates a workspace, its first testing API key and that key's auth token, and prints their credentials.
As the operator you are not bound by /v2/workspace/create's rules (disposable domains, five workspaces per
e-mail, a paid root workspace). Safe while the server runs.

Options:
  --owner-email EMAIL     the owner (required)
  --name NAME             the owner's name
  --workspace-name NAME   default: "<name> workspace", or "<owner-email> workspace"
  --plan free|paid        default free
  --self-serve on|off     may it create production keys itself (default off)
  --max-production-keys N default 0
${DATA_DIR_HELP}
  --json                  { workspaceId, name, ownerEmail, workspaceAuthToken, apiKey, authToken, plan,
                          selfServeProduction, maxProductionKeys }

Example:
  hearth workspace create --owner-email ann@example.com --workspace-name "CI" --json
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, {
      ...DATA_DIR_OPTIONS,
      ...JSON_OPTION,
      'owner-email': { type: 'string' },
      name: { type: 'string' },
      'workspace-name': { type: 'string' },
      plan: { type: 'string' },
      'self-serve': { type: 'string' },
      'max-production-keys': { type: 'string' },
    });
    if (values['owner-email'] === undefined) throw new CliError('workspace create needs --owner-email EMAIL');
    const input = workspaceCreateInput.safeParse({ ownerEmail: values['owner-email'], name: values.name, workspaceName: values['workspace-name'] });
    if (!input.success) throw new CliError(firstIssue(input.error, { ownerEmail: '--owner-email', name: '--name', workspaceName: '--workspace-name' }));
    const settings: WorkspaceSettings = {
      plan: parseChoice('plan', values.plan, WORKSPACE_PLANS) ?? NEW_WORKSPACE_SETTINGS.plan,
      selfServeProduction: parseOnOff('self-serve', values['self-serve']) ?? NEW_WORKSPACE_SETTINGS.selfServeProduction,
      maxProductionKeys: parseWholeNumber('max-production-keys', values['max-production-keys']) ?? NEW_WORKSPACE_SETTINGS.maxProductionKeys,
    };
    const config = loadConfig(io, values);
    const created = await withDataDir(config, async (app) => {
      const made = await insertWorkspace(app, { ...input.data, ownerEmail: input.data.ownerEmail.toLowerCase() }, settings);
      const row = (await findWorkspace(app, made.workspaceId))!.workspace;
      return {
        workspaceId: row.id,
        name: row.name,
        ownerEmail: row.ownerEmail,
        workspaceAuthToken: made.authToken,
        apiKey: made.apiKeyId,
        authToken: made.apiKeyAuthToken,
        plan: row.plan,
        selfServeProduction: row.selfServeProduction,
        maxProductionKeys: row.maxProductionKeys,
      };
    });
    printResult(io, values.json, created, () =>
      [
        `Created workspace ${created.workspaceId} (${created.name}, owner ${created.ownerEmail}, plan ${created.plan})`,
        `  workspaceId         ${created.workspaceId}`,
        `  workspaceAuthToken  ${created.workspaceAuthToken}`,
        `  apiKey              ${created.apiKey}`,
        `  authToken           ${created.authToken}`,
      ].join('\n'),
    );
  },
};
