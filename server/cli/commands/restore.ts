import { resolve } from 'node:path';
import { RESTORE_STEPS, restoreDataDir } from '../../db/backup.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, refuseOnPostgres } from '../options.ts';

const NAME = 'restore';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth restore --from DIR [options]

Puts a backup made by hearth backup (or a pre-migration backup in DATA_DIR/backups/) in place as the data
dir. The backup is checked first (manifest, master key, PRAGMA integrity_check). Refused while a server runs
on the data dir, and over an existing database unless --force. On PostgreSQL (DATABASE_URL) it refuses:
put a pg_dump back with pg_restore.

Options:
  --from DIR              the backup (required)
  --force                 replace an existing database
${DATA_DIR_HELP}
  --json                  { dataDir, from }

Example:
  hearth restore --from ./backups/2026-11-24 --data-dir ./data --force
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, from: { type: 'string' }, force: { type: 'boolean' } });
    const config = loadConfig(io, values);
    refuseOnPostgres(
      config,
      NAME,
      'restore the database with pg_restore (pg_restore --clean --if-exists -d "$DATABASE_URL" hearth.dump) and put back the data dir (master.key) copied beside it',
    );
    if (values.from === undefined) throw new CliError('restore needs --from DIR');
    const { dataDir } = config;
    const progress = io.progress('Restoring', RESTORE_STEPS);
    const result = restoreDataDir(resolve(values.from), dataDir, { force: values.force ?? false, onStep: () => progress.tick() });
    progress.done();
    printResult(io, values.json, result, () => `Restored ${result.from} into ${dataDir}`);
  },
};
