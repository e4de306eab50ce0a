import { resolve } from 'node:path';
import { importArchive } from '../../tooling/import.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult } from '../options.ts';
import { passphraseFrom, progressReporter } from './export.ts';

const NAME = 'import';
const POLICIES = ['fail', 'skip', 'replace'] as const;

export const command: Command = {
  name: NAME,
  help: `Usage: hearth import --from DIR [options]

Loads an archive made by hearth export into the data dir (created when missing). Every file is checked
against the manifest's checksums first; then all rows are written in one transaction: a damaged archive,
a malformed line or a row whose parent is missing changes nothing and names the file and line. Refused while
a server runs on the data dir (it keeps state in memory): stop it first. An archive from a newer Hearth is
refused.

Options:
  --from DIR                  the archive (required)
  --conflict fail|skip|replace  rows that exist already in the data dir: fail (default) refuses the whole
                              import, skip keeps the existing rows, replace overwrites them with the archive's
  --passphrase TEXT           for an archive exported with --secrets include (better: env HEARTH_EXPORT_PASSPHRASE)
${DATA_DIR_HELP}
  --json                      a summary: { dataDir, scope, tables, rows, files, generatedSecrets, droppedSecretRows }

With an archive exported with --secrets omit, the import generates fresh auth tokens and signing secrets
(listed in the summary; hearth apikey tokens shows the new tokens) and AI provider keys must be set again.

Example:
  HEARTH_EXPORT_PASSPHRASE=… hearth import --from ./state --data-dir ./data-copy
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, {
      ...DATA_DIR_OPTIONS,
      ...JSON_OPTION,
      from: { type: 'string' },
      conflict: { type: 'string' },
      passphrase: { type: 'string' },
    });
    if (values.from === undefined) throw new CliError('import needs --from DIR');
    const conflict = values.conflict ?? 'fail';
    if (!(POLICIES as readonly string[]).includes(conflict)) throw new CliError(`--conflict takes fail, skip or replace, not "${conflict}"`);
    const { dataDir, databaseUrl } = loadConfig(io, values);
    const passphrase = passphraseFrom(io, values.passphrase);
    const reporter = progressReporter(io, 'Importing');
    let summary: Awaited<ReturnType<typeof importArchive>>;
    try {
      summary = await importArchive({
        dataDir,
        // DATABASE_URL: the rows and attachments go to PostgreSQL; the data dir keeps the key
        ...(databaseUrl !== undefined ? { database: { engine: 'postgres' as const, url: databaseUrl } } : {}),
        from: resolve(values.from),
        conflict: conflict as (typeof POLICIES)[number],
        ...(passphrase !== undefined ? { passphrase } : {}),
        onProgress: reporter.onProgress,
      });
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), 1);
    }
    reporter.done();
    printResult(io, values.json, summary, () => {
      const r = summary.rows;
      const generated = summary.generatedSecrets.map((g) => `\n  generated: ${g.rows} × ${g.label}`).join('');
      const dropped = summary.droppedSecretRows.map((d) => `\n  not imported (secret left out of the archive): ${d.rows} × ${d.label}`).join('');
      return `Imported ${summary.from} into ${dataDir}: ${r.inserted} rows added, ${r.replaced} replaced, ${r.skipped} kept as they were; ${summary.files} files; ${summary.durationMs} ms${generated}${dropped}`;
    });
  },
};
