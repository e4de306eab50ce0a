import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, type Command } from '../command.ts';
import { DATA_DIR_OPTIONS, loadConfig, parseOptions } from '../options.ts';

const NAME = 'exec';

const OPTIONS = {
  ...DATA_DIR_OPTIONS,
  port: { type: 'string' },
  'database-url': { type: 'string' },
  keep: { type: 'boolean' },
  fixtures: { type: 'string' },
} as const;

/**
 * Variables of the app under test that must not configure the throwaway Hearth: an app's own PORT, DATABASE_URL or
 * DATA_DIR are its own. Hearth takes only the flags (and HEADER_BRAND, LOG_LEVEL, … from the environment).
 */
const APP_VARIABLES = ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'MASTER_KEY_FILE'];

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export const command: Command = {
  name: NAME,
  help: `Usage: hearth exec [options] -- <command> [args…]

Starts a throwaway Hearth in testing mode (a temporary data dir, a free port on 127.0.0.1), waits until it answers,
runs the command with these in its environment, and exits with the command's exit code:

  HEARTH_URL                   http://127.0.0.1:PORT (POST \${HEARTH_URL}/v2/…; the testing API: \${HEARTH_URL}/testing/…)
  HEARTH_WS_URL                ws://127.0.0.1:PORT/yjs (y-websocket's server URL)
  HEARTH_WORKSPACE_ID, HEARTH_WORKSPACE_AUTH_TOKEN   the default workspace's credentials
  HEARTH_API_KEY, HEARTH_AUTH_TOKEN                  its testing API key and auth token
  HEARTH_DATA_DIR              its data dir

SIGINT, SIGTERM and SIGHUP are passed on to the command. When it ends, Hearth stops and its data dir is removed.
A command killed by a signal exits 128 + the signal's number; one that cannot be started, 127.

Options:
  --port N                the port (default 0: a free one)
  --data-dir DIR          use this data dir (made when missing) and keep it afterwards
  --database-url URL      PostgreSQL instead of SQLite (postgres://…); the app's own DATABASE_URL is not read
  --keep                  keep the temporary data dir and print where it is
  --fixtures FILE         load this fixtures file before the command starts (README, "Fixtures"); the HEARTH_*
                          variables still name the default workspace: the file's keys and tokens are fixed already
  --config FILE           a config file (env HEARTH_CONFIG; default ./hearth.config.json when present)

The app's PORT, HOST, DATA_DIR, DATABASE_URL, REDIS_URL and PUBLIC_URL are left to the command: only the flags
configure this Hearth. LOG_LEVEL defaults to warn.

Examples:
  npx hearth exec -- npm test
  npx hearth exec --keep -- npx vitest run
  npx hearth exec -- sh -c 'curl -s -X POST "$HEARTH_URL/v2/ping" -H "content-type: application/json" -d "{\\"data\\":{}}"'
`,
  async run(argv, io) {
    const end = argv.indexOf('--');
    const own = end === -1 ? argv : argv.slice(0, end);
    const commandLine = end === -1 ? [] : argv.slice(end + 1);
    const { values } = parseOptions(NAME, own, OPTIONS);
    const program = commandLine[0];
    if (program === undefined) throw new CliError('name the command to run after --: hearth exec [options] -- <command> [args…]');
    const hearthEnv = Object.fromEntries(Object.entries(io.env).filter(([name]) => !APP_VARIABLES.includes(name)));
    const given = values['data-dir'];
    const dataDir = given ?? mkdtempSync(join(tmpdir(), 'hearth-exec-'));
    const removeData = () => {
      if (given === undefined && !values.keep) rmSync(dataDir, { recursive: true, force: true });
    };
    let server: Awaited<ReturnType<typeof import('../../index.ts').createServer>>;
    try {
      const { configFile: _file, ...config } = loadConfig(
        { ...io, env: hearthEnv },
        { config: values.config, 'data-dir': dataDir, port: values.port ?? '0', host: '127.0.0.1' },
        {
          testing: true,
          ...(io.env.LOG_LEVEL ? {} : { logLevel: 'warn' }),
          ...(values['database-url'] !== undefined ? { databaseUrl: values['database-url'] } : {}),
        },
      );
      if (values.fixtures !== undefined) await (await import('./fixtures-load.ts')).fixturesAtStart(config, values.fixtures);
      const { createServer } = await import('../../index.ts');
      server = await createServer(config).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE') throw new CliError(`port ${config.port} on 127.0.0.1 is in use: pass another --port, or none for a free one`, 1);
        throw error;
      });
      // a reset loads them again (testing/reset.ts)
      if (values.fixtures !== undefined && server.app.testing)
        server.app.testing.fixtures = (await import('../../testing/fixtures.ts')).readFixturesFile(values.fixtures);
    } catch (error) {
      removeData();
      throw error;
    }
    const c = server.credentials;
    const child = spawn(program, commandLine.slice(1), {
      stdio: 'inherit',
      env: {
        ...io.env,
        HEARTH_URL: server.url,
        HEARTH_WS_URL: `${server.url.replace(/^http/, 'ws')}/yjs`,
        HEARTH_WORKSPACE_ID: c.workspaceId,
        HEARTH_WORKSPACE_AUTH_TOKEN: c.workspaceAuthToken,
        HEARTH_API_KEY: c.apiKey,
        HEARTH_AUTH_TOKEN: c.authToken,
        HEARTH_DATA_DIR: dataDir,
      },
    });
    const forward = (signal: NodeJS.Signals) => () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const handlers = SIGNALS.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const exitCode = await new Promise<number>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        io.err(`hearth exec: cannot run ${program}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`);
        resolve(127);
      });
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
    });
    for (const [signal, handler] of handlers) process.off(signal, handler);
    await server.close();
    removeData();
    if (values.keep && given === undefined) io.err(`hearth exec: kept the data dir at ${dataDir}\n`);
    return exitCode;
  },
};
