/** What the commands share: strict option parsing, the configuration from every source, opening a data dir. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveConfig, type Config, type ConfigOverrides } from '../config.ts';
import { configFromAllSources, mergeOverrides } from '../config-file.ts';
import type { AppContext } from '../context.ts';
import { DATABASE_FILE, KEY_FILE } from '../data-files.ts';
import { masterKeyPath } from '../security/secrets.ts';
import { runningServer } from '../server-lock.ts';
import { CliError, type CliIO } from './command.ts';

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Where the data dir is: every command takes these. */
export const DATA_DIR_OPTIONS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
} as const satisfies OptionSpecs;

export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies OptionSpecs;

export const DATA_DIR_HELP = `  --data-dir DIR          the data dir (env DATA_DIR; default ./data)
  --config FILE           a config file (env HEARTH_CONFIG; default ./hearth.config.json when present)`;

/** node:util parseArgs in strict mode; a bad or unknown option becomes one line pointing at the command's help. */
export function parseOptions<const T extends OptionSpecs>(commandName: string, argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw new CliError(`${(error as Error).message.split('\n')[0]}; see npx hearth ${commandName} --help`);
  }
}

/**
 * The configuration from the config file, the environment and the flags (flags > env > file > defaults);
 * a bad value in any of them is a usage error naming it.
 */
export function loadConfig(
  io: CliIO,
  args: { port?: string | undefined; host?: string | undefined; 'data-dir'?: string | undefined; config?: string | undefined },
  extra: ConfigOverrides = {},
): Config & { configFile: string | undefined } {
  try {
    const { overrides, configFile } = configFromAllSources({ env: io.env, cwd: process.cwd(), args });
    const config = resolveConfig(mergeOverrides(overrides, extra));
    // a failure from here on (a start that cannot reach its database, say) is written as the server's log is
    io.logFormat = config.logFormat;
    return { ...config, configFile };
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/**
 * The commands that work on SQLite's files in the data dir (backup, restore, doctor) refuse when Hearth runs on
 * PostgreSQL (DATABASE_URL, or databaseUrl in a config file): the data dir then holds the master key but not the
 * data, and copying, replacing or checking a SQLite file there would act on the wrong thing
 * while looking like success. The refusal comes before anything is read or connected to, and names DATABASE_URL
 * (not its value, which holds a password) and what to use instead.
 */
export function refuseOnPostgres(config: Pick<Config, 'databaseUrl'>, commandName: string, instead: string): void {
  if (config.databaseUrl === undefined) return;
  throw new CliError(
    `hearth ${commandName} works on the SQLite files of the data dir, but DATABASE_URL (config databaseUrl) runs Hearth on PostgreSQL, ` +
      `whose data is not in the data dir: ${instead}. Unset DATABASE_URL to ${commandName} a SQLite data dir.`,
  );
}

/**
 * Opens an existing data dir for an admin command. A missing database is refused rather than created, so a
 * typo in --data-dir cannot leave a new empty data dir behind; so is a database without its master key (a new
 * key would make every stored secret unreadable).
 */
export async function openExistingDataDir(config: Config): Promise<AppContext> {
  if (config.databaseUrl !== undefined) {
    // PostgreSQL (DATABASE_URL): the data dir holds the master key only; the database checks that it is its key
    if (!existsSync(masterKeyPath(config))) {
      throw new CliError(
        `No master key at ${masterKeyPath(config)}: give the key the PostgreSQL database's secrets are encrypted under (MASTER_KEY_FILE, or --data-dir)`,
        1,
      );
    }
    const { postgresMigrationsPendingUnderServer } = await import('../db/repos/postgres.ts');
    const pending = await postgresMigrationsPendingUnderServer(config.databaseUrl);
    if (pending > 0) {
      throw new CliError(
        `A Hearth server of an older version runs on this PostgreSQL database and its schema needs ${pending} migration(s): stop it and start this version (which migrates)`,
        1,
      );
    }
    const { openApp } = await import('../index.ts');
    return await openApp({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  }
  if (!existsSync(join(config.dataDir, DATABASE_FILE))) {
    throw new CliError(`No Hearth data dir at ${config.dataDir}: start the server once (npm start), or check --data-dir`);
  }
  if (!existsSync(join(config.dataDir, KEY_FILE))) {
    throw new CliError(`${config.dataDir} has a database but no ${KEY_FILE}: restore the key (or a backup) before using it`, 1);
  }
  await refuseMigrationUnderRunningServer(config.dataDir);
  // Loaded on use: the whole server is not needed for --help or a configuration error.
  const { openApp } = await import('../index.ts');
  // Admin commands print results, not the server's info lines; warnings (a pre-migration backup) still show.
  return await openApp({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
}

/**
 * Opening applies pending migrations; under a running (older) server that would change the schema beneath it.
 * The upgrade belongs to the start of the new server, so an admin command refuses instead.
 */
async function refuseMigrationUnderRunningServer(dataDir: string) {
  const running = runningServer(dataDir);
  if (!running) return;
  const { schemaStatusOfFile } = await import('../db/inspect.ts');
  const { pending } = schemaStatusOfFile(join(dataDir, DATABASE_FILE));
  if (pending > 0) {
    throw new CliError(
      `A Hearth server (pid ${running.pid}, ${running.url}) of an older version runs on ${dataDir} and its schema needs ${pending} migration(s): stop it and start this version (which migrates, after a backup)`,
      1,
    );
  }
}

export async function withDataDir<T>(config: Config, work: (app: AppContext) => T | Promise<T>): Promise<T> {
  const app = await openExistingDataDir(config);
  try {
    return await work(app);
  } finally {
    await app.cluster?.close();
    await app.storage.close();
  }
}

/** JSON (indented, one document) with --json; the human text otherwise. */
export function printResult(io: CliIO, json: boolean | undefined, value: unknown, text: () => string) {
  io.out(json ? `${JSON.stringify(value, null, 2)}\n` : text().endsWith('\n') ? text() : `${text()}\n`);
}

export function parseOnOff(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new CliError(`--${flag} takes on or off, not "${value}"`);
}

export function parseWholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isInteger(number) || number < 0) throw new CliError(`--${flag} takes a whole number, not "${value}"`);
  return number;
}

export function parseChoice<const T extends string>(flag: string, value: string | undefined, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) throw new CliError(`--${flag} takes ${choices.join(' or ')}, not "${value}"`);
  return value as T;
}
