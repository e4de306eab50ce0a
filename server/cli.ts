import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { configFromEnvAndArgs, resolveConfig } from './config.ts';
import { createServer, openApp, type HearthServer } from './index.ts';
import { backupDataDir, restoreDataDir } from './services/backup.ts';
import { CREDENTIALS_FILE } from './services/bootstrap.ts';
import { describeSettings, findDefaultWorkspace, findWorkspace, listWorkspaces, updateWorkspaceSettings } from './services/workspaces.ts';

const HELP = `Hearth: a self-hosted collaboration backend.

Usage:
  npm start [-- --port N --host H --data-dir DIR]       run the server (same as: serve)
  npm run hearth -- <command> [options]

Commands:
  serve                     run the server (default)
  workspace list            list workspaces with their plan and production-key settings
  workspace settings        show or change a workspace's plan and production-key settings:
      --workspace ID            the workspace (default: the one made at first start)
      --plan free|paid
      --self-serve on|off       may the workspace create production keys itself
      --max-production-keys N
  backup --out DIR          an online, consistent copy of the data dir (database, master key, credentials),
                            safe while the server runs
  restore --from DIR        put a backup in place as the data dir; refused while a server runs on it, and
                            over an existing database unless --force
Options:
  --port N, --host H, --data-dir DIR   as the PORT, HOST and DATA_DIR environment variables
  --json                                machine-readable output (workspace, backup, restore)
  --help                                this text
`;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      workspace: { type: 'string' },
      plan: { type: 'string' },
      'self-serve': { type: 'string' },
      'max-production-keys': { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      from: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function banner(server: HearthServer): string {
  const c = server.credentials;
  return [
    `Hearth ${server.app.version} is running`,
    `  API        ${server.url}`,
    `  Admin UI   ${server.url}/`,
    `  Data dir   ${server.config.dataDir}`,
    `  Credentials (also in ${join(server.config.dataDir, CREDENTIALS_FILE)}):`,
    `    workspaceId         ${c.workspaceId}`,
    `    workspaceAuthToken  ${c.workspaceAuthToken}`,
    `    apiKey              ${c.apiKey}`,
    `    authToken           ${c.authToken}`,
    `  Try: curl -s -X POST ${server.url}/v2/ping -H 'content-type: application/json' -d '{"data":{}}'`,
    '',
  ].join('\n');
}

async function serve(values: ReturnType<typeof parse>['values']) {
  const server = await createServer({ ...configFromEnvAndArgs(process.env, values), banner: true });
  process.stdout.write(banner(server));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting at once\n`);
      process.exit(1);
    }
    stopping = true;
    server.app.log.info(`${signal}: finishing in-flight requests and closing the database`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}


function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new Error(`--self-serve takes on or off, not "${value}"`);
}

function workspaceCommand(sub: string | undefined, values: ReturnType<typeof parse>['values']) {
  const app = openApp(resolveConfig({ ...configFromEnvAndArgs(process.env, values), logLevel: 'warn' }));
  try {
    const print = (rows: ReturnType<typeof describeSettings>[]) => {
      if (values.json) process.stdout.write(JSON.stringify(rows.length === 1 && sub === 'settings' ? rows[0] : rows, null, 2) + '\n');
      else for (const r of rows) process.stdout.write(`${r.workspaceId}  ${r.name}  owner=${r.ownerEmail}  plan=${r.plan}  selfServeProduction=${r.selfServeProduction}  maxProductionKeys=${r.maxProductionKeys}${r.isDefault ? '  (default)' : ''}\n`);
    };
    if (sub === 'list') return print(listWorkspaces(app).map(describeSettings));
    if (sub !== 'settings') throw new Error(`Unknown workspace command "${sub ?? ''}"; see --help`);
    const workspace = values.workspace ? findWorkspace(app, values.workspace) : findDefaultWorkspace(app);
    if (!workspace) throw new Error(values.workspace ? `No workspace ${values.workspace}` : 'No default workspace yet: start the server once');
    const plan = values.plan;
    if (plan !== undefined && plan !== 'free' && plan !== 'paid') throw new Error(`--plan takes free or paid, not "${plan}"`);
    const max = values['max-production-keys'];
    const maxProductionKeys = max === undefined ? undefined : Number(max);
    if (maxProductionKeys !== undefined && !(Number.isInteger(maxProductionKeys) && maxProductionKeys >= 0)) {
      throw new Error(`--max-production-keys takes a whole number, not "${max}"`);
    }
    const updated = updateWorkspaceSettings(app, workspace.id, { plan, selfServeProduction: onOff(values['self-serve']), maxProductionKeys });
    print([describeSettings(updated)]);
  } finally {
    app.sqlite.close();
  }
}

async function main() {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const [command = 'serve', sub] = positionals;
  if (command === 'serve') return serve(values);
  if (command === 'workspace') return workspaceCommand(sub, values);
  if (command === 'backup' || command === 'restore') {
    const { dataDir } = resolveConfig(configFromEnvAndArgs(process.env, values));
    let result: Record<string, unknown>;
    if (command === 'backup') {
      if (!values.out) throw new Error('backup needs --out DIR');
      result = backupDataDir(dataDir, resolve(values.out));
    } else {
      if (!values.from) throw new Error('restore needs --from DIR');
      result = restoreDataDir(resolve(values.from), dataDir, { force: values.force ?? false });
    }
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${command === 'backup' ? `Backed up ${dataDir} to ${String(result.outDir)} (${String(result.bytes)} bytes)` : `Restored ${String(result.from)} into ${dataDir}`}\n`);
    return;
  }
  throw new Error(`Unknown command "${command}"; see --help`);
}

main().catch((error: unknown) => {
  process.stderr.write(`hearth: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
