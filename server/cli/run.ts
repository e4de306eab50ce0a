/**
 * The dispatcher of the `hearth` CLI: finds the command from the leading words, answers `--help`, runs it, and
 * turns every failure into one line on stderr and an exit code (a CliError's, 1 for anything else).
 */
import { createLogger, describeError, escapeControl } from '../log.ts';
import { VERSION } from '../version.ts';
import { CliError, type CliIO, type CommandEntry } from './command.ts';
import { createProgress } from './progress.ts';

/** The command `npm start` runs when no command word is given (`npm start -- --port 9000`). */
const DEFAULT_COMMAND = 'serve';

export function overview(commands: CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'Hearth: a self-hosted collaboration backend.',
    '',
    'Usage (in the project: npx hearth …; npm start runs the server):',
    '  hearth [serve] [--port N] [--host H] [--data-dir DIR] [--config FILE]   run the server (npm start)',
    '  hearth <command> [options]',
    '  hearth <command> --help                                                 the options of a command',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Every command takes --data-dir DIR and --config FILE (default: ./hearth.config.json when present),',
    'reads the environment variables of the runtime contract (PORT, HOST, DATA_DIR, HEADER_BRAND, LOG_LEVEL, …),',
    'and --json where it prints a result. Exit codes: 0 success, 1 failure, 2 usage or configuration error.',
    '',
  ].join('\n');
}

/** The command named by the longest run of leading words, and the arguments after them. */
function findCommand(commands: CommandEntry[], argv: string[]): { command: CommandEntry; rest: string[] } | undefined {
  let found: { command: CommandEntry; rest: string[] } | undefined;
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word) && (!found || words.length > found.command.name.split(' ').length)) {
      found = { command, rest: argv.slice(words.length) };
    }
  }
  return found;
}

function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** Runs one invocation; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIO, commands: CommandEntry[]): Promise<number> {
  try {
    const first = argv[0];
    if (first === '--version' || first === '-v') {
      io.out(`${VERSION}\n`);
      return 0;
    }
    if (first === 'help') {
      const named = findCommand(commands, argv.slice(1));
      io.out(named ? (await named.command.load()).help : overview(commands));
      return 0;
    }
    if (first === undefined || first.startsWith('-')) {
      if (wantsHelp(argv)) {
        io.out(overview(commands));
        return 0;
      }
      argv = [DEFAULT_COMMAND, ...argv];
    }
    const found = findCommand(commands, argv);
    if (!found) return unknownCommand(commands, argv, io);
    const command = await found.command.load();
    if (wantsHelp(found.rest)) {
      io.out(command.help);
      return 0;
    }
    const code = await command.run(found.rest, io);
    return code ?? 0;
  } catch (error) {
    const exitCode = error instanceof CliError ? error.exitCode : 1;
    reportFailure(io, error, exitCode);
    return exitCode;
  }
}

/**
 * The failure that ends a command, on stderr in the log format (LOG_FORMAT, or the resolved configuration's): with
 * `json` one log object (`level: error`, the message, its causes' fields and the exit code), so that a log collector
 * reads a failed start (a database refusing a query, Redis unreachable, a shutdown that failed) as it reads the
 * server's other lines; else one `hearth: …` line for a person, with the causes (PostgreSQL's own words under
 * drizzle's "Failed query") and the failed query's SQL. Control characters are escaped either way.
 */
function reportFailure(io: CliIO, error: unknown, exitCode: number) {
  const format = io.logFormat ?? (io.env.LOG_FORMAT?.toLowerCase() === 'json' ? 'json' : 'text');
  const { message, fields } = error instanceof CliError ? { message: error.message, fields: {} } : describeError(error);
  if (format === 'json') {
    createLogger('error', 'json', (line) => io.err(`${line}\n`)).error(message, { ...fields, exitCode });
    return;
  }
  const extra = Object.entries(fields).map(([key, value]) => `${key} ${String(value)}`);
  io.err(`hearth: ${escapeControl(message)}${extra.length > 0 ? ` (${escapeControl(extra.join('; '))})` : ''}\n`);
}

/** `hearth workspace` (a group without its verb) lists the group; anything else is an unknown command. */
function unknownCommand(commands: CommandEntry[], argv: string[], io: CliIO): number {
  const group = commands.filter((c) => c.name.startsWith(`${argv[0]} `));
  if (group.length > 0) {
    const verbs = group.map((c) => c.name.slice(argv[0]!.length + 1));
    if (argv[1] === undefined || wantsHelp(argv.slice(1))) {
      const listing = group.map((c) => `  ${c.name.padEnd(24)}${c.summary}`).join('\n');
      const asked = wantsHelp(argv.slice(1));
      (asked ? io.out : io.err)(`Usage: hearth ${argv[0]} <${verbs.join('|')}> [options]\n\n${listing}\n\nSee: hearth ${argv[0]} <command> --help\n`);
      return asked ? 0 : 2;
    }
    io.err(`hearth: unknown command "${argv[0]} ${argv[1]}": choose one of ${verbs.join(', ')}\n`);
    return 2;
  }
  io.err(`hearth: unknown command "${argv[0]}"; see npx hearth --help\n`);
  return 2;
}

/** The CliIO of a real process: stdout, stderr, progress on stderr (silent with --json). */
export function processIO(argv: string[]): CliIO {
  const quiet = argv.includes('--json');
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    progress: (label, total) => createProgress(process.stderr, label, total, { quiet }),
    env: process.env,
    isTTY: process.stderr.isTTY === true,
  };
}
