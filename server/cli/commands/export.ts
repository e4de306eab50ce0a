import { resolve } from 'node:path';
import { exportArchive } from '../../tooling/export.ts';
import { CliError, type CliIO, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult } from '../options.ts';
import type { Progress } from '../progress.ts';
import { passphraseProblem } from '../../tooling/archive-secrets.ts';

const NAME = 'export';

/** The tooling's (done, total, label) callback as a CLI progress bar. */
export function progressReporter(io: CliIO, label: string) {
  let progress: Progress | undefined;
  let reported = 0;
  return {
    onProgress(done: number, total: number) {
      progress ??= io.progress(label, total);
      progress.tick(done - reported, total);
      reported = done;
    },
    done(message?: string) {
      progress?.done(message);
    },
  };
}

/** --passphrase, else HEARTH_EXPORT_PASSPHRASE (a flag shows in the process list; the variable does not). */
export function passphraseFrom(io: CliIO, flag: string | undefined): string | undefined {
  const value = flag ?? io.env.HEARTH_EXPORT_PASSPHRASE;
  return value === '' ? undefined : value;
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth export --out DIR [options]
       hearth export --as-fixtures [FILE] [--workspace ID] [options]

Writes the data dir's state into DIR (a new or empty directory): manifest.json (format version, Hearth
version, schema level, scope, row counts, sha256 of every file), one JSON-lines file per table under tables/,
collaborative documents as one merged Yjs update each, and recordings' attachment files under files/.
Read as one instant, so it is consistent even while a server runs. Bring it back with hearth import.

Secrets (auth tokens, webhook signing secrets, AI provider keys, e-mail bodies) are stored encrypted under the
data dir's master key; an archive never depends on that key:
  --secrets include       seal them under a key derived from a passphrase (scrypt, AES-256-GCM); the import
                          needs the same passphrase and seals them under the target's master key
  --secrets omit          leave them out; the import generates fresh tokens and secrets where a row needs one
                          and leaves out AI provider keys (configure them again)

--as-fixtures writes a fixtures file instead (JSON; stdout without FILE): the workspaces with their auth tokens,
API keys with theirs, organizations, folders, documents with access, users, groups, expiring permissions,
notifications, comments and collaborative content, read through the API; hearth fixtures load brings it into a
fresh database (docs/fixtures.md says what a fixtures file leaves out).

Options:
  --out DIR               where the archive goes (required without --as-fixtures)
  --as-fixtures           a fixtures file, not an archive
  --workspace ID          only this workspace (its API keys and all their data)
  --api-key ID            only this API key (and its workspace's row, without the workspace's auth token)
  --secrets include|omit  (required) see above
  --passphrase TEXT       the passphrase for --secrets include (better: env HEARTH_EXPORT_PASSPHRASE)
${DATA_DIR_HELP}
  --json                  a summary: { out, scope, tables, rows, files, bytes, durationMs, omittedSecrets }

Examples:
  HEARTH_EXPORT_PASSPHRASE=… hearth export --out ./state --secrets include
  hearth export --out ./one-key --api-key AbCdEf0123456789ghIJ --secrets omit
`,
  async run(argv, io) {
    const { values, positionals } = parseOptions(
      NAME,
      argv,
      {
        ...DATA_DIR_OPTIONS,
        ...JSON_OPTION,
        'as-fixtures': { type: 'boolean' },
        out: { type: 'string' },
        workspace: { type: 'string' },
        'api-key': { type: 'string' },
        secrets: { type: 'string' },
        passphrase: { type: 'string' },
      },
      true,
    );
    if (values['as-fixtures']) {
      const { exportFixturesCommand } = await import('./fixtures-load.ts');
      return exportFixturesCommand(io, values, positionals);
    }
    if (positionals.length > 0) throw new CliError(`export takes no FILE without --as-fixtures (got ${positionals[0]}); see npx hearth export --help`);
    if (values.out === undefined) throw new CliError('export needs --out DIR');
    if (values.secrets !== 'include' && values.secrets !== 'omit') {
      throw new CliError(
        values.secrets === undefined
          ? 'export needs --secrets include or --secrets omit (say whether secrets go into the archive)'
          : `--secrets takes include or omit, not "${values.secrets}"`,
      );
    }
    if (values.workspace !== undefined && values['api-key'] !== undefined) throw new CliError('give --workspace or --api-key, not both');
    const passphrase = passphraseFrom(io, values.passphrase);
    if (values.secrets === 'include' && passphrase === undefined)
      throw new CliError('--secrets include needs a passphrase: --passphrase or env HEARTH_EXPORT_PASSPHRASE');
    const weak = values.secrets === 'include' && passphrase !== undefined ? passphraseProblem(passphrase) : undefined;
    if (weak) throw new CliError(weak);
    const { dataDir, databaseUrl } = loadConfig(io, values);
    const reporter = progressReporter(io, 'Exporting');
    let summary: Awaited<ReturnType<typeof exportArchive>>;
    try {
      summary = await exportArchive({
        dataDir,
        // DATABASE_URL: the rows and attachments come from PostgreSQL; the data dir keeps the key
        ...(databaseUrl !== undefined ? { database: { engine: 'postgres' as const, url: databaseUrl } } : {}),
        out: resolve(values.out),
        ...(values.workspace !== undefined ? { workspaceId: values.workspace } : {}),
        ...(values['api-key'] !== undefined ? { apiKeyId: values['api-key'] } : {}),
        secrets: values.secrets,
        ...(passphrase !== undefined ? { passphrase } : {}),
        onProgress: reporter.onProgress,
      });
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), 1);
    }
    reporter.done();
    printResult(io, values.json, summary, () => {
      const omitted = summary.omittedSecrets.map((o) => `\n  left out: ${o.rows} × ${o.label}`).join('');
      return `Exported ${summary.rows} rows and ${summary.files} files (${summary.bytes} bytes) from ${dataDir} to ${summary.out} in ${summary.durationMs} ms; secrets ${summary.secrets === 'include' ? 'sealed with the passphrase' : 'omitted'}${omitted}`;
    });
  },
};
