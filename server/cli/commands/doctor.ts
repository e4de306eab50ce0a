import type { Command } from '../command.ts';
import { runChecks } from '../doctor.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, printResult, refuseOnPostgres } from '../options.ts';

const NAME = 'doctor';

function summary(checks: { status: string }[]): string {
  const count = (status: string) => checks.filter((c) => c.status === status).length;
  if (count('fail') > 0) return `${count('fail')} check(s) failed.`;
  return count('warn') > 0 ? `No failures; ${count('warn')} warning(s).` : 'All checks passed.';
}

export const command: Command = {
  name: NAME,
  help: `Usage: hearth doctor [options]

Checks, without changing anything (safe while the server runs):
  data dir     exists and is writable
  master key   present, a valid key, mode 0600
  database     opens and passes PRAGMA integrity_check
  schema       its migrations against this build's (pending ones, or made by a newer Hearth)
  deliveries   webhooks.db (webhook delivery state) passes PRAGMA integrity_check
  disk space   room for the database and a backup of it
  server       which Hearth server holds the data dir, or whether the port is free
Prints ok, warn or fail per check; exits with 1 when any check fails. These are SQLite's files: on PostgreSQL
(DATABASE_URL) it refuses (use PostgreSQL's own tools: pg_isready, pg_dump / pg_restore).

Options:
  --port N, --host H      the address serve would listen on (env PORT, HOST)
${DATA_DIR_HELP}
  --json                  { ok, dataDir, checks: [{ name, status: ok|warn|fail, message }] }

Example:
  hearth doctor --data-dir ./data
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, port: { type: 'string' }, host: { type: 'string' } });
    const config = loadConfig(io, values);
    refuseOnPostgres(
      config,
      NAME,
      "check PostgreSQL with its own tools (pg_isready for the server, pg_dump / pg_restore for backups) and the server's GET /readyz",
    );
    const checks = await runChecks(config);
    const ok = checks.every((c) => c.status !== 'fail');
    printResult(io, values.json, { ok, dataDir: config.dataDir, checks }, () =>
      [...checks.map((c) => `${c.status.padEnd(5)} ${c.name.padEnd(11)} ${c.message}`), summary(checks)].join('\n'),
    );
    return ok ? 0 : 1;
  },
};
