import { join } from 'node:path';
import type { HearthServer } from '../../index.ts';
import { CREDENTIALS_FILE } from '../../services/bootstrap.ts';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, loadConfig, parseOptions } from '../options.ts';

const NAME = 'serve';

const OPTIONS = {
  ...DATA_DIR_OPTIONS,
  port: { type: 'string' },
  host: { type: 'string' },
  import: { type: 'string' },
  'import-conflict': { type: 'string' },
  'export-on-exit': { type: 'string' },
  'export-secrets': { type: 'string' },
  passphrase: { type: 'string' },
  testing: { type: 'boolean' },
  fixtures: { type: 'string' },
} as const;

const TRANSFER_FLAGS = ['import', 'import-conflict', 'export-on-exit', 'export-secrets', 'passphrase'] as const;

function banner(server: HearthServer): string {
  const c = server.credentials;
  return [
    `Hearth ${server.app.version} is running`,
    `  API        ${server.url}`,
    `  Admin UI   ${server.url}/`,
    `  Sign in    ${server.signInLink()}`,
    `             (one-time link; a new one: npx hearth signin-link)`,
    ...(server.app.publicUrl !== server.url ? [`  Links to   ${server.app.publicUrl} (PUBLIC_URL: login links and attachment URLs)`] : []),
    ...(server.config.testing ? [`  Testing    ${server.url}/testing/ (reset, clock, outbox)`] : []),
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

export const command: Command = {
  name: NAME,
  help: `Usage: hearth serve [options]      (also: npm start -- [options])

Runs the API, the y-websocket sync and the admin UI until SIGTERM or SIGINT, which finish in-flight requests
and close the database. The first start creates the data dir, a default workspace and a testing API key, and
writes their credentials to DATA_DIR/credentials.json. A data dir made by an older Hearth is migrated (after a
backup into DATA_DIR/backups/pre-migrate-<time>/); one made by a newer Hearth is refused.

Options:
  --port N                port to listen on (env PORT; default 8787; 0 picks a free one)
  --host H                address to listen on (env HOST; default 127.0.0.1)
${DATA_DIR_HELP}
  --testing               testing mode: the /testing/ routes answer (reset, clock, captured mail and webhooks;
                          README, "Hearth in your test suite"). Never on a server others rely on: anyone who
                          reaches it can delete all its data.

Saved states (like the emulator suites' flags; archives as made by hearth export):
  --import DIR            load this archive into the data dir before serving (refused on conflicting rows)
  --import-conflict fail|skip|replace   rows the data dir already has: see hearth import --help
  --export-on-exit DIR    on SIGTERM/SIGINT, after the server stopped, export the data dir's state into DIR;
                          DIR may be new, empty or a previous export (replaced only once the new one is whole)
  --export-secrets include|omit   required with --export-on-exit: see hearth export --help
  --passphrase TEXT       for archives with secrets (better: env HEARTH_EXPORT_PASSPHRASE)

Fixtures (README, "Fixtures"):
  --fixtures FILE         load this fixtures file before serving (as hearth fixtures load); a restart on a data dir
                          that holds its workspaces already keeps them as they are

Environment (and config file key): HEADER_BRAND (headerBrand), LOG_LEVEL (logLevel), LOG_FORMAT text|json (logFormat), SMTP_URL (smtpUrl),
  MAIL_FROM (mailFrom), MAIL_RECIPIENTS_PER_CALL, MAIL_RECIPIENTS_PER_MINUTE, MONITOR_MB, LOGIN_LINK_ALLOWED_HOSTS (loginLinkAllowedHosts), AI_TIMEOUT_MS (aiTimeoutMs),
  WEBHOOK_RETRY_SCHEDULE_MS (webhookRetryScheduleMs), RESPONSE_CACHE_MB (responseCacheMb),
  MASTER_KEY_FILE (masterKeyFile: the master key's file when not DATA_DIR/master.key; read, never created). Precedence: flags > env > config file > defaults.

Examples:
  hearth serve --port 9000 --data-dir ./demo-data
  hearth serve --data-dir $(mktemp -d) --import ./state --export-on-exit ./state --export-secrets omit
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, OPTIONS);
    const { configFile, ...config } = loadConfig(io, values, { banner: true, ...(values.testing ? { testing: true } : {}) });
    const wantsTransfer = TRANSFER_FLAGS.some((flag) => values[flag] !== undefined);
    const transfer = wantsTransfer ? await import('../serve-transfer.ts') : undefined;
    const plan = transfer?.planTransfer(io, values);
    if (transfer && plan) await transfer.importAtStart(io, config.dataDir, plan);
    const fixtures = values.fixtures === undefined ? undefined : await (await import('./fixtures-load.ts')).fixturesAtStart(config, values.fixtures);
    // Loaded on use: the whole server is not needed for --help or a configuration error.
    const { createServer } = await import('../../index.ts');
    const server = await createServer(config).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        throw new CliError(`port ${config.port} on ${config.host} is in use: pass another --port (or PORT), or stop the program holding it`, 1);
      throw error;
    });
    if (configFile) server.app.log.info('configuration file read', { file: configFile });
    // in testing mode a reset loads them again (testing/reset.ts)
    if (values.fixtures !== undefined && server.app.testing)
      server.app.testing.fixtures = (await import('../../testing/fixtures.ts')).readFixturesFile(values.fixtures);
    // Signal handlers before the banner: a supervisor (or a test) may send SIGTERM as soon as it reads the banner.
    const stopped = untilStopped(server, io);
    io.out(banner(server) + (fixtures ? `${fixtures}\n` : ''));
    await stopped;
    if (transfer && plan) await transfer.exportAtExit(io, config.dataDir, plan);
  },
};

/** Resolves once a SIGTERM/SIGINT has closed the server; a second signal exits at once. */
function untilStopped(server: HearthServer, io: { err(text: string): void }): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        server.app.log.warn(`${signal} again: exiting at once`);
        process.exit(1);
      }
      stopping = true;
      server.app.log.info(`${signal}: finishing in-flight requests and closing the database`);
      server.close().then(resolve, (error: unknown) => reject(new Error(`shutdown failed: ${String(error)}`)));
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
