/**
 * `serve --import DIR` and `serve --export-on-exit DIR`, as the emulator suites have them: start from a saved
 * state, and save the state when the server stops. Both go through the export/import tooling
 * (server/tooling/transfer.ts); this file adds what serving needs: checks before the server starts, and an
 * export that replaces the previous archive only once the new one is complete.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ARCHIVE_FORMAT } from '../tooling/archive-schema.ts';
import { exportArchive } from '../tooling/export.ts';
import { importArchive } from '../tooling/import.ts';
import { CliError, type CliIO } from './command.ts';
import { passphraseFrom, progressReporter } from './commands/export.ts';
import { parseChoice } from './options.ts';
import { passphraseProblem } from '../tooling/archive-secrets.ts';

export interface TransferPlan {
  importFrom?: string;
  conflict: 'fail' | 'skip' | 'replace';
  exportTo?: string;
  secrets?: 'include' | 'omit';
  passphrase?: string;
}

/** Validates the transfer flags before anything starts, so that a mistake is not found only at exit. */
export function planTransfer(
  io: CliIO,
  values: {
    import?: string | undefined;
    'import-conflict'?: string | undefined;
    'export-on-exit'?: string | undefined;
    'export-secrets'?: string | undefined;
    passphrase?: string | undefined;
  },
): TransferPlan {
  const conflict = parseChoice('import-conflict', values['import-conflict'], ['fail', 'skip', 'replace'] as const) ?? 'fail';
  if (values['import-conflict'] !== undefined && values.import === undefined) throw new CliError('--import-conflict goes with --import DIR');
  const secrets = parseChoice('export-secrets', values['export-secrets'], ['include', 'omit'] as const);
  if (values['export-on-exit'] === undefined && secrets !== undefined) throw new CliError('--export-secrets goes with --export-on-exit DIR');
  const passphrase = passphraseFrom(io, values.passphrase);
  const plan: TransferPlan = { conflict, ...(passphrase !== undefined ? { passphrase } : {}) };
  if (values.import !== undefined) {
    plan.importFrom = resolve(values.import);
    if (!existsSync(join(plan.importFrom, 'manifest.json'))) throw new CliError(`--import ${plan.importFrom}: not a Hearth export (no manifest.json)`);
  }
  if (values['export-on-exit'] !== undefined) {
    if (secrets === undefined) throw new CliError('--export-on-exit needs --export-secrets include or omit (say whether secrets go into the archive)');
    if (secrets === 'include' && passphrase === undefined)
      throw new CliError('--export-secrets include needs a passphrase: --passphrase or env HEARTH_EXPORT_PASSPHRASE');
    const weak = secrets === 'include' && passphrase !== undefined ? passphraseProblem(passphrase) : undefined;
    if (weak) throw new CliError(weak);
    plan.exportTo = resolve(values['export-on-exit']);
    plan.secrets = secrets;
    checkReplaceable(plan.exportTo);
  }
  return plan;
}

/** The export target may be missing, empty, or a previous Hearth export (replaced at exit); nothing else is overwritten. */
function checkReplaceable(dir: string) {
  if (!existsSync(dir) || readdirSync(dir).length === 0) return;
  let format: unknown;
  try {
    format = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { format?: unknown }).format;
  } catch {
    format = undefined;
  }
  if (format !== ARCHIVE_FORMAT) throw new CliError(`--export-on-exit ${dir} is not empty and not a Hearth export: choose a new or empty directory`);
}

export async function importAtStart(io: CliIO, dataDir: string, plan: TransferPlan) {
  if (!plan.importFrom) return;
  const reporter = progressReporter(io, 'Importing');
  try {
    const summary = await importArchive({
      dataDir,
      from: plan.importFrom,
      conflict: plan.conflict,
      ...(plan.passphrase !== undefined ? { passphrase: plan.passphrase } : {}),
      onProgress: reporter.onProgress,
    });
    reporter.done();
    io.err(`Imported ${summary.rows.inserted + summary.rows.replaced} rows and ${summary.files} files from ${plan.importFrom}\n`);
  } catch (error) {
    throw new CliError(`--import ${plan.importFrom}: ${(error as Error).message}`, 1);
  }
}

/**
 * Exports into a staging directory beside the target, then swaps it in: a failed or interrupted export leaves
 * the previous archive as it was.
 */
export async function exportAtExit(io: CliIO, dataDir: string, plan: TransferPlan) {
  if (!plan.exportTo || !plan.secrets) return;
  const target = plan.exportTo;
  const staging = `${target}.exporting-${process.pid}`;
  const previous = `${target}.previous-${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  const reporter = progressReporter(io, 'Exporting');
  try {
    const summary = await exportArchive({
      dataDir,
      out: staging,
      secrets: plan.secrets,
      ...(plan.passphrase !== undefined ? { passphrase: plan.passphrase } : {}),
      onProgress: reporter.onProgress,
    });
    reporter.done();
    if (existsSync(target)) renameSync(target, previous);
    renameSync(staging, target);
    rmSync(previous, { recursive: true, force: true });
    io.err(`Exported ${summary.rows} rows and ${summary.files} files to ${target}\n`);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(target) && existsSync(previous)) renameSync(previous, target);
    throw new CliError(`--export-on-exit ${target}: ${(error as Error).message}`, 1);
  }
}
