import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { DATABASE_FILE } from '../../data-files.ts';
import type { Fixtures, FixturesSummary } from '../../testing/fixtures.ts';
import { CliError, type CliIO, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, openExistingDataDir, parseOptions, printResult } from '../options.ts';

const NAME = 'fixtures load';

/**
 * Opens the data dir (a new one is made as the first start makes it: default workspace, testing key,
 * credentials.json; on PostgreSQL the database must exist), runs `work`, and closes it with its documents stored.
 */
export async function withFixtureTarget<T>(config: Config, work: (app: AppContext) => Promise<T>): Promise<T> {
  let app: AppContext;
  if (config.databaseUrl === undefined && !existsSync(join(config.dataDir, DATABASE_FILE))) {
    const { openApp } = await import('../../index.ts');
    const { ensureDefaultCredentials } = await import('../../services/bootstrap.ts');
    app = await openApp({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
    await ensureDefaultCredentials(app);
  } else {
    app = await openExistingDataDir(config);
  }
  try {
    return await work(app);
  } finally {
    await app.crdt.flushAll();
    app.crdt.close();
    await app.jobs.close();
    await app.mail.close();
    await app.cluster?.close();
    await app.storage.close();
  }
}

/** Reads the file and loads it into the configured data dir (or database); a bad file or a refusal is a CliError. */
export async function loadFixturesInto(config: Config, file: string): Promise<FixturesSummary> {
  const { FixturesError, loadFixtures, readFixturesFile } = await import('../../testing/fixtures.ts');
  let fixtures: Fixtures;
  try {
    fixtures = readFixturesFile(file);
  } catch (error) {
    if (error instanceof FixturesError) throw new CliError(error.message);
    throw error;
  }
  try {
    return await withFixtureTarget(config, (app) => loadFixtures(app, fixtures));
  } catch (error) {
    if (error instanceof FixturesError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth fixtures load FILE [options]

Loads a fixtures file (JSON, or YAML named .yaml or .yml: workspaces, API keys with fixed ids and auth tokens,
organizations, folders, documents with access, users, groups, permissions, notifications, comments and
collaborative content) into the data dir, or into the PostgreSQL database of DATABASE_URL. Everything is written
through the API's own operations; the rows of the whole file in one unit of work (nothing is written when one part
is refused), the collaborative content after them. A workspace or API key id that exists already is refused: load into a fresh
data dir, or after a reset. A new data dir is created as the first start creates it.

The file's format: docs/fixtures.md; its JSON Schema (for editors): docs/fixtures.schema.json.

Options:
${DATA_DIR_HELP}
  --json                  { workspaces, credentials, counts, durationMs }

Example:
  hearth fixtures load docs/fixtures.example.json --data-dir ./test-data && npm start -- --data-dir ./test-data
`,
  async run(argv, io) {
    const { values, positionals } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION }, true);
    if (positionals.length !== 1) throw new CliError('fixtures load needs one FILE (a fixtures file: JSON, or YAML named .yaml or .yml)');
    const file = positionals[0] as string;
    const config = loadConfig(io, values);
    const summary = await loadFixturesInto(config, file);
    printResult(io, values.json, summary, () => {
      const c = summary.counts;
      return [
        `Loaded ${file} in ${summary.durationMs} ms: ${summary.workspaces.length} workspace(s), ${summary.workspaces.reduce((n, w) => n + w.apiKeys.length, 0)} API key(s),`,
        `  ${c.organizations} organizations, ${c.folders} folders, ${c.documents} documents, ${c.users} users, ${c.groups} groups,`,
        `  ${c.permissions} permissions, ${c.notifications} notifications, ${c.comments} comment threads, ${c.contents} collaborative contents`,
        ...summary.workspaces.flatMap((w) => [`  workspace ${w.id}`, ...w.apiKeys.map((k) => `    apiKey ${k.id}  authToken ${k.authTokens[0] ?? ''}`)]),
      ].join('\n');
    });
  },
};

/** `hearth export --as-fixtures [FILE] [--workspace ID]`: the database as a fixtures file (stdout without FILE). */
export async function exportFixturesCommand(
  io: CliIO,
  values: {
    workspace?: string | undefined;
    out?: string | undefined;
    secrets?: string | undefined;
    'api-key'?: string | undefined;
    'data-dir'?: string | undefined;
    config?: string | undefined;
  },
  positionals: string[],
): Promise<void> {
  if (values.out !== undefined || values.secrets !== undefined || values['api-key'] !== undefined) {
    throw new CliError('--as-fixtures writes a fixtures FILE: --out, --secrets and --api-key are for archives (see npx hearth export --help)');
  }
  if (positionals.length > 1) throw new CliError('export --as-fixtures takes at most one FILE');
  const file = positionals[0];
  const config = loadConfig(io, values);
  if (config.databaseUrl === undefined && !existsSync(join(config.dataDir, DATABASE_FILE))) {
    throw new CliError(`No Hearth data dir at ${config.dataDir}: check --data-dir`);
  }
  const { exportFixtures } = await import('../../testing/fixtures-export.ts');
  const fixtures = await withFixtureTarget(config, (app) =>
    exportFixtures(app, values.workspace !== undefined ? { workspaceId: values.workspace } : {}).catch((error: Error) => {
      throw new CliError(error.message, 1);
    }),
  );
  const text = `${JSON.stringify(fixtures, null, 2)}\n`;
  if (file === undefined) io.out(text);
  else {
    writeFileSync(file, text);
    const keys = fixtures.workspaces.reduce((n, w) => n + w.apiKeys.length, 0);
    io.err(`Wrote ${fixtures.workspaces.length} workspace(s) and ${keys} API key(s) as fixtures to ${file}\n`);
  }
}

/**
 * `serve --fixtures FILE`: loads the file into the data dir before the server opens it. A start on a data dir that
 * holds every workspace of the file already (a restart) keeps them as they are; one that holds some of them only
 * is refused, as `fixtures load` refuses it. Answers what was done, for the banner.
 */
export async function fixturesAtStart(config: Config, file: string): Promise<string> {
  const { FixturesError, readFixturesFile } = await import('../../testing/fixtures.ts');
  let ids: string[];
  try {
    ids = readFixturesFile(file).workspaces.map((w) => w.id);
  } catch (error) {
    if (error instanceof FixturesError) throw new CliError(error.message);
    throw error;
  }
  if (ids.length > 0 && (config.databaseUrl !== undefined || existsSync(join(config.dataDir, DATABASE_FILE)))) {
    const present = await withFixtureTarget(config, async (app) => {
      let n = 0;
      for (const id of ids) if (await app.storage.workspaces.forCredentials(id)) n++;
      return n;
    });
    if (present === ids.length) return `Fixtures   ${file}: already loaded (its ${ids.length} workspace(s) are in the database; kept as they are)`;
  }
  const summary = await loadFixturesInto(config, file);
  const c = summary.credentials;
  return `Fixtures   ${file}: loaded in ${summary.durationMs} ms${c ? ` (workspace ${c.workspaceId}, apiKey ${c.apiKey})` : ''}`;
}
