import { resolve } from 'node:path';
import { BACKUP_STEPS, backupDataDir } from '../../db/backup.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, refuseOnPostgres } from '../options.ts';

const NAME = 'backup';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth backup --out DIR [options]

Copies the data dir into DIR, a new or empty directory: the database as of one instant (SQLite's
VACUUM INTO, which a busy server cannot starve), the master key (without it the stored secrets cannot be
read), credentials.json and a manifest.json. Safe while the server runs. Put it back with hearth restore.
A backup holds the master key beside the data it unlocks: whoever reads it reads every secret. Its files are
created owner-only (0600, folder 0700); keep it where only you can read it.
On PostgreSQL (DATABASE_URL) it refuses: back the database up with pg_dump, and copy the data dir beside it.

Options:
  --out DIR               where the copy goes (required; must not exist or be empty)
${DATA_DIR_HELP}
  --json                  { outDir, format, hearthVersion, migrations, createdAt, bytes }

Example:
  hearth backup --data-dir ./data --out ./backups/2026-11-24
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, out: { type: 'string' } });
    const config = loadConfig(io, values);
    refuseOnPostgres(
      config,
      NAME,
      'back the database up with pg_dump (pg_dump -Fc "$DATABASE_URL" -f hearth.dump) and copy the data dir (master.key) beside it',
    );
    if (values.out === undefined) throw new CliError('backup needs --out DIR');
    const { dataDir } = config;
    const progress = io.progress('Backing up', BACKUP_STEPS);
    const result = backupDataDir(dataDir, resolve(values.out), () => progress.tick());
    progress.done();
    io.err(
      `Note: ${result.outDir} holds the master key with the data it unlocks (every secret, every workspace's tokens): keep it where only you can read it.\n`,
    );
    printResult(io, values.json, result, () => `Backed up ${dataDir} to ${result.outDir} (${result.bytes} bytes)`);
  },
};
